import AtelierImaging
import CAtelierCodecs
import CAtelierColorFixtures
import Foundation
import XCTest

/// Colour management: every carrier's profile honoured (compared with lcms2's double-precision
/// reference transform, ΔE ≤ 1), CMYK JPEGs with and without a profile, 10-bit and HDR HEIC,
/// damaged profiles read as sRGB with a note, and results tagged sRGB with nothing else.
final class ColorManagementTests: XCTestCase {
    /// Display P3 values: the pure primaries, white, gray and four mid colours (where P3 and sRGB
    /// readings differ most visibly), each a 16 × 16 patch, 4 × 2 patches.
    static let patches: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255],
                                     [128, 128, 128], [230, 120, 40], [40, 160, 150], [200, 60, 140]]

    static func patchImage(_ colors: [[UInt8]] = patches, side: Int = 16) -> PixelBuffer {
        let channels = colors[0].count, columns = 4, rows = (colors.count + columns - 1) / columns
        let width = columns * side, height = rows * side
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let color = colors[(y / side) * columns + x / side]
                for c in 0..<channels { pixels[(y * width + x) * channels + c] = color[c] }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    static func profile(primaries: Int32, _ description: String) -> [UInt8] {
        var size = 0
        let bytes = acf_rgb_profile(primaries, description, &size)!
        defer { acf_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    static let displayP3 = profile(primaries: 12, "Display P3 (test)")

    static func lab(reference icc: [UInt8], cmyk: Bool = false, _ pixels: [UInt8]) throws -> [Double] {
        let count = pixels.count / (cmyk ? 4 : 3)
        var lab = [Double](repeating: 0, count: count * 3)
        let ok = acf_reference_lab(icc, icc.count, cmyk ? 1 : 0, pixels, Int32(count), &lab)
        XCTAssertEqual(ok, 1, "lcms2 opens the reference profile")
        return lab
    }

    static func lab(sRGB pixels: [UInt8]) -> [Double] {
        var lab = [Double](repeating: 0, count: pixels.count)
        acf_srgb_lab(pixels, Int32(pixels.count / 3), &lab)
        return lab
    }

    /// The largest CIE76 ΔE between two Lab lists.
    static func maxDeltaE(_ a: [Double], _ b: [Double]) -> Double {
        var largest = 0.0
        for i in stride(from: 0, to: a.count, by: 3) {
            let dL: Double = a[i] - b[i], da: Double = a[i + 1] - b[i + 1], db: Double = a[i + 2] - b[i + 2]
            largest = max(largest, (dL * dL + da * da + db * db).squareRoot())
        }
        return a.isEmpty ? .infinity : largest
    }

    /// Decodes `bytes` twice — as stored, and colour-managed — and checks the managed pixels are
    /// what lcms2's reference transform makes of the stored ones through `icc`.
    @discardableResult
    func assertMatchesReference(_ bytes: [UInt8], icc: [UInt8], _ name: String) throws -> (stored: PixelBuffer, managed: DecodedImage) {
        let stored = try ImageCodec.decode(bytes, manageColor: false)
        let managed = try ImageCodec.decodeReporting(bytes)
        XCTAssertTrue(managed.color.converted, name)
        XCTAssertEqual(managed.color.notes, [], name)
        XCTAssertEqual([managed.image.width, managed.image.height], [stored.width, stored.height], name)
        let reference = try Self.lab(reference: icc, stored.pixels)
        let deltaE = Self.maxDeltaE(reference, Self.lab(sRGB: managed.image.pixels))
        XCTAssertLessThanOrEqual(deltaE, 1.0, "\(name): largest ΔE against lcms2's reference")
        XCTAssertNotEqual(stored.pixels, managed.image.pixels, "\(name): the mid colours change")
        return (stored, managed)
    }

    func testDisplayP3ComesOutAsLcms2sReferenceInEveryCarrier() throws {
        let picture = Self.patchImage()
        let png = ColorCarriers.png(try ImageCodec.encodePNG(picture), icc: Self.displayP3)
        let (stored, managed) = try assertMatchesReference(png, icc: Self.displayP3, "PNG iCCP")
        XCTAssertEqual(stored, picture, "the PNG stores the P3 values exactly: pure P3 red, green and blue are among them")
        XCTAssertEqual(managed.color.source, "ICC: Display P3 (test)")
        // P3 orange read as P3 is more saturated in sRGB than the same numbers read as sRGB.
        let orange = (16 + 8) * picture.width * 3 + (16 + 8) * 3
        XCTAssertGreaterThan(managed.image.pixels[orange], stored.pixels[orange])
        XCTAssertLessThan(managed.image.pixels[orange + 2], stored.pixels[orange + 2])

        try assertMatchesReference(ColorCarriers.jpeg(try ImageCodec.encodeJPEG(picture, quality: 95), icc: Self.displayP3),
                                   icc: Self.displayP3, "JPEG APP2")
        // A profile over several APP2 chunks is reassembled in order.
        try assertMatchesReference(ColorCarriers.jpeg(try ImageCodec.encodeJPEG(picture, quality: 95), icc: Self.displayP3, chunk: 100),
                                   icc: Self.displayP3, "JPEG APP2 in chunks")
        try assertMatchesReference(ColorCarriers.webp(try ImageCodec.encodeWebP(picture, lossless: true), icc: Self.displayP3),
                                   icc: Self.displayP3, "WebP ICCP")
        let wide = picture.pixels.map(UInt16.init)
        try assertMatchesReference(try heic(wide, picture.width, picture.height, depth: 8, icc: Self.displayP3),
                                   icc: Self.displayP3, "HEIC colr ICC")
        let nclx = try assertMatchesReference(try heic(wide, picture.width, picture.height, depth: 8, primaries: 12, transfer: 13),
                                              icc: Self.displayP3, "HEIC colr nclx (Display P3)")
        XCTAssertEqual(nclx.managed.color.source, "nclx 12/13")
    }

    func testTheMatrixShaperKernelAgreesWithLcms2sOwn8BitTransform() throws {
        // 262,144 random pixels through the P3 profile: our kernel (ImageCodec.convertToSRGB) and
        // lcms2's optimised 8-bit transform differ by one step at most, and rarely (the bound
        // asserted is 2 % of samples; what was seen: docs/benchmarks/colour.md).
        var generator = SystemRandomNumberGenerator()
        let random = PixelBuffer(width: 512, height: 512, channels: 3,
                                 pixels: (0..<(512 * 512 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let file = ColorCarriers.png(try ImageCodec.encodePNG(random), icc: Self.displayP3)
        var ours = try ImageCodec.decode(file, manageColor: false)
        XCTAssertEqual(ours, random)
        XCTAssertTrue(ImageCodec.convertToSRGB(&ours, declaredIn: file).converted)
        var theirs = random.pixels
        XCTAssertEqual(acf_lcms_8bit(Self.displayP3, Self.displayP3.count, &theirs, Int32(512 * 512)), 1)
        let differences = zip(ours.pixels, theirs).map { abs(Int($0) - Int($1)) }
        XCTAssertLessThanOrEqual(differences.max() ?? 0, 1)
        XCTAssertLessThan(Double(differences.filter { $0 != 0 }.count) / Double(differences.count), 0.02)
    }

    func testUntaggedAndSRGBImagesAreLeftAsTheyAre() throws {
        let picture = Self.patchImage()
        let sRGB = Self.profile(primaries: 1, "another maker's sRGB")
        for (name, bytes) in [("our PNG (sRGB chunk)", try ImageCodec.encodePNG(picture)),
                              ("a PNG with an sRGB profile of other bytes", ColorCarriers.png(try ImageCodec.encodePNG(picture), icc: sRGB)),
                              ("our JPEG (sRGB ICC)", try ImageCodec.encodeJPEG(picture)),
                              ("our WebP (sRGB ICCP)", try ImageCodec.encodeWebP(picture, lossless: true)),
                              ("our HEIC (sRGB nclx)", try ImageCodec.encodeHEIC(picture))] {
            let decoded = try ImageCodec.decodeReporting(bytes)
            XCTAssertFalse(decoded.color.converted, name)
            XCTAssertEqual(decoded.color.notes, [], name)
            XCTAssertEqual(decoded.image, try ImageCodec.decode(bytes, manageColor: false), name)
        }
    }

    func testResultsAreTaggedSRGBAndCarryNothingElse() throws {
        let picture = Self.patchImage()
        let jpeg = try ImageCodec.encodeJPEG(picture)
        // SOI's followers: JFIF (APP0), the ICC profile (APP2), tables, frame, scan — no EXIF, no XMP.
        XCTAssertEqual(Set(ColorCarriers.jpegMarkers(jpeg)).subtracting([0xDB, 0xC0, 0xC4, 0xDA]), [0xE0, 0xE2])
        XCTAssertTrue(try ImageCodec.decodeReporting(jpeg).color.source.hasSuffix("(sRGB)"))
        XCTAssertEqual(ColorCarriers.pngChunks(try ImageCodec.encodePNG(picture)).filter { $0 != "IDAT" }, ["IHDR", "sRGB", "IEND"])
        let webp = try ImageCodec.encodeWebP(picture)
        XCTAssertEqual(Array(webp[12..<16]), Array("VP8X".utf8))
        XCTAssertTrue(try ImageCodec.decodeReporting(webp).color.source.hasSuffix("(sRGB)"))
        XCTAssertEqual(try ImageCodec.decodeReporting(try ImageCodec.encodeHEIC(picture)).color.source, "nclx 1/13")
        // Gray JPEGs stay untagged (read as sRGB gray).
        let gray = PixelBuffer(width: 16, height: 16, channels: 1, fill: 90)
        XCTAssertFalse(ColorCarriers.jpegMarkers(try ImageCodec.encodeJPEG(gray)).contains(0xE2))
    }

    func testADamagedProfileIsReadAsSRGBWithANote() throws {
        let picture = Self.patchImage()
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let jpeg = try ImageCodec.encodeJPEG(picture, quality: 95)
        let png = try ImageCodec.encodePNG(picture)
        let cases: [(String, [UInt8], String)] = [
            ("JPEG, a profile of random bytes", ColorCarriers.jpeg(jpeg, icc: garbage), "damaged"),
            ("JPEG, chunk 1 of 2 only", ColorCarriers.jpeg(jpeg, icc: Self.displayP3, sequence: [(1, 2)]), "missing"),
            ("JPEG, chunk 2 twice", ColorCarriers.jpeg(jpeg, icc: Self.displayP3, chunk: 300,
                                                       sequence: Array(repeating: (2, 2), count: 3)), "out of order or repeated"),
            ("JPEG, a profile cut short", ColorCarriers.jpeg(jpeg, icc: Array(Self.displayP3.prefix(200))), "damaged"),
            ("PNG, an iCCP that does not inflate", ColorCarriers.png(png, icc: [], compressed: garbage), "does not inflate"),
            ("PNG, an iCCP of random bytes", ColorCarriers.png(png, icc: garbage), "damaged"),
            ("WebP, an ICCP of random bytes", ColorCarriers.webp(try ImageCodec.encodeWebP(picture, lossless: true), icc: garbage), "damaged"),
            ("JPEG, a CMYK profile on RGB pixels", ColorCarriers.jpeg(jpeg, icc: try Self.standardCMYK()), "not an RGB profile"),
        ]
        for (name, bytes, words) in cases {
            let decoded = try ImageCodec.decodeReporting(bytes)
            XCTAssertFalse(decoded.color.converted, name)
            XCTAssertEqual(decoded.image, try ImageCodec.decode(bytes, manageColor: false), "\(name): read as sRGB")
            XCTAssertEqual(decoded.color.notes.count, 1, name)
            XCTAssertTrue(decoded.color.notes.first?.contains(words) ?? false, "\(name): \(decoded.color.notes)")
        }
    }

    func testProfilesFoundByTheFuzzerDecode() throws {
        // Profiles whose curves evaluate to NaN: the kernel once used NaN as a table index.
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fuzz/regressions")
        for name in ["jpeg/crash-e3f53137fdab597daa67835df37277563cf99afe", "webp/crash-5a5b493a233c1d96c9df388d4cf20789751c79b2"] {
            let bytes = [UInt8](try Data(contentsOf: fuzz.appendingPathComponent(name)))
            let decoded = try ImageCodec.decodeReporting(bytes)
            XCTAssertTrue(decoded.color.converted, name)  // through the matrix-shaper kernel; ./ops/fuzz replays it under ASan
        }
    }

    // MARK: CMYK

    static func standardCMYK() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/default_cmyk.icc")))
    }

    /// Ink per patch (0 none … 255 full): paper, C, M, Y, K, and three mixes.
    static let inks: [[UInt8]] = [[0, 0, 0, 0], [255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 0],
                                  [0, 0, 0, 255], [51, 153, 204, 25], [200, 40, 10, 0], [30, 30, 30, 120]]

    func cmykJPEG(ycck: Bool, icc: [UInt8]?) throws -> [UInt8] {
        // Stored as Adobe stores it: inverted.
        let stored = Self.patchImage(Self.inks.map { $0.map { 255 - $0 } })
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let ok: Int32 = if let icc {
            acf_jpeg_encode_cmyk(stored.pixels, Int32(stored.width), Int32(stored.height), ycck ? 1 : 0, icc, icc.count, &out, &size)
        } else {
            acf_jpeg_encode_cmyk(stored.pixels, Int32(stored.width), Int32(stored.height), ycck ? 1 : 0, nil, 0, &out, &size)
        }
        XCTAssertEqual(ok, 1)
        defer { acf_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// The centre pixel of each patch, as sRGB Lab.
    static func patchCentres(_ image: PixelBuffer, count: Int, side: Int = 16) -> [UInt8] {
        (0..<count).flatMap { index -> [UInt8] in
            let x = (index % 4) * side + side / 2, y = (index / 4) * side + side / 2
            let at = (y * image.width + x) * image.channels
            return Array(image.pixels[at..<(at + 3)])
        }
    }

    func testCMYKJPEGsAreConvertedThroughTheirProfileOrTheStandardOne() throws {
        let standard = try Self.standardCMYK()
        let embedded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/ps_cmyk.icc")))
        let ink = Self.inks.flatMap { $0 }
        let viaStandard = try Self.lab(reference: standard, cmyk: true, ink)
        let viaEmbedded = try Self.lab(reference: embedded, cmyk: true, ink)
        XCTAssertGreaterThan(Self.maxDeltaE(viaStandard, viaEmbedded), 5, "the two profiles differ, so the test tells them apart")
        for ycck in [false, true] {
            let kind = ycck ? "YCCK" : "CMYK"
            for (name, icc, reference) in [("\(kind) with its profile", Optional(embedded), viaEmbedded),
                                           ("\(kind) without a profile", nil, viaStandard)] {
                let jpeg = try cmykJPEG(ycck: ycck, icc: icc)
                XCTAssertEqual(try ImageCodec.probe(jpeg), ImageInfo(format: .jpeg, width: 64, height: 32), name)
                let decoded = try ImageCodec.decodeReporting(jpeg)
                XCTAssertEqual(decoded.image.channels, 3, name)
                XCTAssertTrue(decoded.color.converted, name)
                XCTAssertEqual(decoded.color.notes, [], name)
                let ours = Self.lab(sRGB: Self.patchCentres(decoded.image, count: Self.inks.count))
                // The JPEG itself moves a flat patch's ink by a step or so: ΔE ≤ 2 here.
                XCTAssertLessThanOrEqual(Self.maxDeltaE(reference, ours), 2.0, name)
            }
        }
        // Paper is white and full black is dark, whichever profile.
        let decoded = try ImageCodec.decode(try cmykJPEG(ycck: false, icc: nil))
        let centres = Self.patchCentres(decoded, count: Self.inks.count)
        XCTAssertGreaterThan(centres[0...2].map(Int.init).min()!, 230)
        XCTAssertLessThan(centres[12...14].map(Int.init).max()!, 80)
        // A broken embedded profile: the standard profile, and a note.
        let broken = try ImageCodec.decodeReporting(try cmykJPEG(ycck: false, icc: Array(embedded.prefix(300))))
        XCTAssertEqual(broken.color.notes.count, 1)
        XCTAssertTrue(broken.color.notes[0].contains("standard CMYK profile"), "\(broken.color.notes)")
        XCTAssertLessThanOrEqual(Self.maxDeltaE(viaStandard, Self.lab(sRGB: Self.patchCentres(broken.image, count: Self.inks.count))), 2.0)
    }

    // MARK: HEIC

    func heic(_ pixels: [UInt16], _ width: Int, _ height: Int, depth: Int, primaries: Int = 0, transfer: Int = 0,
              orientation: ExifOrientation = .up, icc: [UInt8]? = nil) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let ok: Int32 = if let icc {
            acf_heif_encode(pixels, Int32(width), Int32(height), Int32(depth), Int32(primaries), Int32(transfer),
                            Int32(orientation.rawValue), icc, icc.count, &out, &size)
        } else {
            acf_heif_encode(pixels, Int32(width), Int32(height), Int32(depth), Int32(primaries), Int32(transfer),
                            Int32(orientation.rawValue), nil, 0, &out, &size)
        }
        XCTAssertEqual(ok, 1, "libheif encodes the fixture")
        defer { acf_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    func testTenAndTwelveBitP3HEICsDecodeUprightAtTheirSizeAndInSRGB() throws {
        let picture = CodecTests.picture(width: 64, height: 48)
        for depth in [10, 12] {
            // Deeper samples: the 8-bit picture scaled up, plus half a step (between two 8-bit values).
            let scale = UInt16(1 << (depth - 8))
            let deep = picture.pixels.map { UInt16($0) * scale + scale / 2 }
            let bytes = try heic(deep, 64, 48, depth: depth, primaries: 12, transfer: 13, orientation: .right)
            XCTAssertEqual(try ImageCodec.probe(bytes), ImageInfo(format: .heic, width: 48, height: 64), "\(depth)-bit")
            let stored = try ImageCodec.decode(bytes, manageColor: false)
            let expected = picture.oriented(.right)
            XCTAssertEqual([stored.width, stored.height, stored.channels], [48, 64, 3], "\(depth)-bit")
            XCTAssertLessThan(CodecTests.meanAbsoluteError(stored, expected), 6.0, "the \(depth)-bit picture, turned, in 8 bits")
            let managed = try ImageCodec.decodeReporting(bytes)
            XCTAssertTrue(managed.color.converted, "\(depth)-bit")
            XCTAssertLessThanOrEqual(Self.maxDeltaE(try Self.lab(reference: Self.displayP3, stored.pixels), Self.lab(sRGB: managed.image.pixels)),
                                     1.0, "\(depth)-bit")
        }
    }

    func testAGridHEICDecodesWholeUprightAndInSRGB() throws {
        // Four 64 × 64 tiles (red, green, blue, gray), a 2 × 2 grid cropped to 120 × 100, turned
        // 90° anticlockwise (irot 1), Display P3 (nclx 12/13) — as a camera writes a photo.
        let colors: [[UInt8]] = [[220, 40, 40], [40, 200, 60], [50, 60, 210], [128, 128, 128]]
        let tiles = try colors.map { try ImageCodec.encodeHEIC(
            PixelBuffer(width: 64, height: 64, channels: 3, pixels: Array([[UInt8]](repeating: $0, count: 64 * 64).joined())), quality: 95) }
        let grid = HEIFGridBuilder.make(tiles: tiles, columns: 2, rows: 2, tileSide: 64, width: 120, height: 100,
                                        rotation: 1, primaries: 12, transfer: 13)
        XCTAssertEqual(try ImageCodec.probe(grid), ImageInfo(format: .heic, width: 100, height: 120))
        let stored = try ImageCodec.decode(grid, manageColor: false)
        XCTAssertEqual([stored.width, stored.height, stored.channels], [100, 120, 3])
        // Anticlockwise: the top-right tile is now top-left, the top-left one bottom-left, the
        // bottom-right one top-right.
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(stored.pixels[(y * stored.width + x) * 3 + $0]) } }
        for (x, y, tile) in [(10, 10, 1), (10, 110, 0), (90, 10, 3), (90, 110, 2)] {
            for (value, expected) in zip(pixel(x, y), colors[tile]) {
                XCTAssertEqual(Double(value), Double(expected), accuracy: 6, "(\(x), \(y)) shows tile \(tile)")
            }
        }
        let managed = try ImageCodec.decodeReporting(grid)
        XCTAssertEqual(managed.color.source, "nclx 12/13")
        XCTAssertLessThanOrEqual(Self.maxDeltaE(try Self.lab(reference: Self.displayP3, stored.pixels), Self.lab(sRGB: managed.image.pixels)), 1.0)
    }

    /// PQ (SMPTE ST 2084) code value of `nits` at 10 bits.
    static func pq(_ nits: Double) -> UInt16 {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let y = pow(nits / 10_000, m1)
        return UInt16((pow((c1 + c2 * y) / (1 + c3 * y), m2) * 1023).rounded())
    }

    func testAnHDRHEICIsToneMappedToSDR() throws {
        // Grays in BT.2020 PQ: black, 18 % of SDR reference white (203 cd/m²), reference white,
        // 1000 and 4000 cd/m² highlights.
        let levels: [Double] = [0, 0.18 * 203, 203, 1000, 4000]
        // Then sRGB's red at 100 cd/m² written in BT.2020 primaries (linear 0.6274, 0.0691, 0.0164):
        // the primaries must come back to sRGB's red, not stay BT.2020 numbers.
        let red = [0.6274, 0.0691, 0.0164].map { Self.pq(100 * $0) }
        let colors = levels.map { [Self.pq($0), Self.pq($0), Self.pq($0)] } + [red, red, red]
        let side = 16, width = 64, height = 32
        var samples = [UInt16](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let color = colors[(y / side) * 4 + x / side]
                for c in 0..<3 { samples[(y * width + x) * 3 + c] = color[c] }
            }
        }
        let decoded = try ImageCodec.decodeReporting(try heic(samples, width, height, depth: 10, primaries: 9, transfer: 16))
        XCTAssertTrue(decoded.color.toneMapped)
        XCTAssertEqual(decoded.color.notes, ["an HDR image (PQ or HLG transfer): tone-mapped to 8-bit SDR"])
        let centres = Self.patchCentres(decoded.image, count: 5).enumerated().filter { $0.offset % 3 == 1 }.map { Int($0.element) }
        XCTAssertLessThanOrEqual(centres[0], 3, "black stays black")
        XCTAssertEqual(Double(centres[1]), 118, accuracy: 5, "18 % gray below the knee is sRGB's 18 % gray (118)")
        XCTAssertGreaterThanOrEqual(centres[2], 235, "reference white is near white")
        XCTAssertGreaterThan(centres[3], centres[2], "highlights above it stay brighter")
        XCTAssertGreaterThanOrEqual(centres[4], centres[3])
        XCTAssertLessThanOrEqual(centres[4], 255)
        // Linear 100/203 = 0.49 of white in sRGB red, below the knee: the sRGB curve gives 187.
        let redCentre = Self.patchCentres(decoded.image, count: 6).suffix(3).map(Int.init)
        XCTAssertEqual(Double(redCentre[0]), 187, accuracy: 6, "\(redCentre)")
        XCTAssertLessThanOrEqual(max(redCentre[1], redCentre[2]), 10, "\(redCentre)")
    }

    /// The transform cache keeps what is in use, not the first eight profiles it met: eight
    /// one-off profiles (as after a restart) no longer stop every later profile from being
    /// cached, and a profile used again stays cached while any number of one-offs pass through.
    /// A transform is the cache's when `ac_color_prepare` hands the same one out twice.
    func testTheTransformCacheKeepsProfilesInUseNotTheFirstEight() throws {
        func prepare(_ icc: [UInt8]) throws -> OpaquePointer {
            var source = ac_color_source()
            var note = [CChar](repeating: 0, count: 160)
            let transform = icc.withUnsafeBufferPointer { bytes -> OpaquePointer? in
                source.icc = UnsafeMutablePointer(mutating: bytes.baseAddress)
                source.icc_size = bytes.count
                return ac_color_prepare(&source, 3, &note, nil)
            }
            return try XCTUnwrap(transform, "a Display P3 profile needs a transform")
        }
        for oneOff in 0..<8 { ac_color_release(try prepare(Self.profile(primaries: 12, "one-off \(oneOff) (test)"))) }
        let steady = Self.profile(primaries: 12, "in steady use (test)")
        let first = try prepare(steady), second = try prepare(steady)
        XCTAssertEqual(first, second, "the profile after eight one-offs is cached")
        ac_color_release(first)
        ac_color_release(second)
        for oneOff in 0..<20 { ac_color_release(try prepare(Self.profile(primaries: 12, "passing \(oneOff) (test)"))) }
        let third = try prepare(steady)
        XCTAssertEqual(third, first, "a profile used twice outlives twenty one-offs")
        ac_color_release(third)
        // A transform given up by the cache while in use stays whole until its user releases it
        // (ASan checks it in ./ops/check-codecs; here: it still transforms).
        let held = try prepare(Self.profile(primaries: 12, "held (test)"))
        for oneOff in 0..<20 { ac_color_release(try prepare(Self.profile(primaries: 12, "evicting \(oneOff) (test)"))) }
        var pixels: [UInt8] = [230, 120, 40]
        ac_color_apply(held, &pixels, 1, 1)
        XCTAssertNotEqual(pixels, [230, 120, 40], "P3 orange is more saturated in sRGB")
        ac_color_release(held)
    }
    /// lcms2 believes a profile's counts: a description (`mluc`) declaring 16.7 million records
    /// made it allocate and zero 200 MB for a 1 KB profile (found by ./ops/fuzz's cost check,
    /// Tests/Fuzz/regressions/webp/slow-icc-record-count). What lcms2 is given for one profile is
    /// now budgeted by its size; the description is lost, the colours are still managed.
    func testAProfileCostsLcms2MemoryByItsSizeNotByTheCountsItDeclares() throws {
        var icc = Self.profile(primaries: 12, "a description of many records (test)")
        func word(_ at: Int) -> Int { icc[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let tags = word(128)
        let desc = try XCTUnwrap((0..<tags).map { 132 + $0 * 12 }.first { String(decoding: icc[$0..<($0 + 4)], as: UTF8.self) == "desc" })
        let offset = word(desc + 4)
        XCTAssertEqual(String(decoding: icc[offset..<(offset + 4)], as: UTF8.self), "mluc")
        icc.replaceSubrange((offset + 8)..<(offset + 12), with: [0x00, 0xFF, 0x00, 0x01])  // 16,711,681 records

        var source = ac_color_source()
        var note = [CChar](repeating: 0, count: 160), description = [CChar](repeating: 0, count: 64)
        let transform = icc.withUnsafeBufferPointer { bytes -> OpaquePointer? in
            source.icc = UnsafeMutablePointer(mutating: bytes.baseAddress)
            source.icc_size = bytes.count
            return ac_color_prepare(&source, 3, &note, &description)
        }
        func text(_ characters: [CChar]) -> String {
            String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        var given = 0, refused = 0
        ac_color_last_profile_cost(&given, &refused)
        XCTAssertLessThan(given, 4 << 20 + 16 * icc.count, "lcms2 is given at most the profile's budget")
        XCTAssertGreaterThanOrEqual(refused, 16_711_681 * 12, "the declared records' memory is refused")
        XCTAssertEqual(text(description), "", "the description is unreadable")
        let held = try XCTUnwrap(transform, "the colorants and curves are intact: still a P3 transform")
        var pixels: [UInt8] = [230, 120, 40]
        ac_color_apply(held, &pixels, 1, 1)
        XCTAssertNotEqual(pixels, [230, 120, 40], "P3 orange is more saturated in sRGB")
        ac_color_release(held)

        // The same profile with its real description is given far less than the budget.
        Self.displayP3.withUnsafeBufferPointer { bytes in
            source.icc = UnsafeMutablePointer(mutating: bytes.baseAddress)
            source.icc_size = bytes.count
            ac_color_release(ac_color_prepare(&source, 3, &note, &description))
        }
        ac_color_last_profile_cost(&given, &refused)
        XCTAssertEqual(refused, 0)
        XCTAssertEqual(text(description), "Display P3 (test)")
    }
    /// lcms2 prefers floating-point tables (D2B0) and ran every grid point of a transform through
    /// every stage of them: CPU in proportion to the tables' size, far too much at the carriers'
    /// 8 MiB cap (docs/benchmarks/reliability.md, "Fuzzing: cost per KB"). They are dropped: a P3 profile that
    /// also carries tables that swap red and blue is read by its matrix and curves, exactly as
    /// the same profile without them.
    func testFloatingPointTablesAreDroppedForTheMatrixAndCurves() throws {
        var size = 0
        let bytes = try XCTUnwrap(acf_rgb_profile_with_float_tables(12, "P3 with float tables (test)", 1, &size))
        defer { acf_free(bytes) }
        let withTables = Array(UnsafeBufferPointer(start: bytes, count: size))
        XCTAssertNotNil(withTables.indices.dropLast(4).first { String(decoding: withTables[$0..<($0 + 4)], as: UTF8.self) == "D2B0" })
        func transformed(_ icc: [UInt8]) throws -> [UInt8] {
            var source = ac_color_source()
            var note = [CChar](repeating: 0, count: 160)
            var pixels: [UInt8] = [230, 120, 40, 40, 160, 150, 255, 0, 0]
            let transform = icc.withUnsafeBufferPointer { bytes -> OpaquePointer? in
                source.icc = UnsafeMutablePointer(mutating: bytes.baseAddress)
                source.icc_size = bytes.count
                return ac_color_prepare(&source, 3, &note, nil)
            }
            let held = try XCTUnwrap(transform)
            ac_color_apply(held, &pixels, 3, 1)
            ac_color_release(held)
            return pixels
        }
        XCTAssertEqual(try transformed(withTables), try transformed(Self.displayP3))
    }
}
