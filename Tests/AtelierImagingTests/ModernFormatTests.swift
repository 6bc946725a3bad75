import AtelierImaging
import CAtelierCodecs
import Foundation
import XCTest

/// HEIC (libheif) and WebP (libwebp): round trips, alpha, HEIC's own rotation applied once,
/// header probes, and damaged files answered with errors.
final class ModernFormatTests: XCTestCase {
    let picture = CodecTests.picture(width: 96, height: 64)

    func testWebPRoundTrips() throws {
        let lossless = try ImageCodec.encodeWebP(picture, lossless: true)
        XCTAssertEqual(ImageFormat.sniff(lossless), .webp)
        XCTAssertEqual(try ImageCodec.decode(lossless), picture, "lossless WebP is exact")

        let lossy = try ImageCodec.encodeWebP(picture, quality: 90)
        let decoded = try ImageCodec.decode(lossy)
        XCTAssertEqual([decoded.width, decoded.height, decoded.channels], [96, 64, 3])
        XCTAssertLessThan(CodecTests.meanAbsoluteError(decoded, picture), 4.0)

        let withAlpha = CodecTests.picture(width: 96, height: 64, channels: 4)
        let rgba = try ImageCodec.decode(try ImageCodec.encodeWebP(withAlpha, lossless: true))
        XCTAssertEqual(rgba, withAlpha, "alpha survives")
    }

    func testHEICRoundTrips() throws {
        let heic = try ImageCodec.encodeHEIC(picture, quality: 90)
        XCTAssertEqual(ImageFormat.sniff(heic), .heic)
        let decoded = try ImageCodec.decode(heic)
        XCTAssertEqual([decoded.width, decoded.height, decoded.channels], [96, 64, 3])
        XCTAssertLessThan(CodecTests.meanAbsoluteError(decoded, picture), 6.0)
        XCTAssertEqual(try ImageCodec.probe(heic), ImageInfo(format: .heic, width: 96, height: 64))
    }

    func testHEICRotationIsAppliedOnceByLibheif() throws {
        // Stored with irot/imir boxes (as an iPhone stores a portrait shot): decoding must give
        // the same pixels as our own EXIF rotation of the original — and never rotate again.
        for orientation in [ExifOrientation.right, .down, .left, .upMirrored] {
            let heic = try ImageCodec.encodeHEIC(picture, quality: 95, orientation: orientation)
            let decoded = try ImageCodec.decode(heic)
            let expected = picture.oriented(orientation)
            XCTAssertEqual([decoded.width, decoded.height], [expected.width, expected.height], "\(orientation)")
            XCTAssertLessThan(CodecTests.meanAbsoluteError(decoded, expected), 6.0, "\(orientation)")
            XCTAssertEqual(try ImageCodec.probe(heic).width, expected.width, "the probe reports the upright size")
        }
    }

    func testProbeReadsOnlyTheHeader() throws {
        let jpeg = try ImageCodec.encodeJPEG(picture)
        XCTAssertEqual(try ImageCodec.probe(jpeg), ImageInfo(format: .jpeg, width: 96, height: 64))
        XCTAssertEqual(try ImageCodec.probe(try ImageCodec.encodePNG(picture)), ImageInfo(format: .png, width: 96, height: 64))
        XCTAssertEqual(try ImageCodec.probe(try ImageCodec.encodeWebP(picture)), ImageInfo(format: .webp, width: 96, height: 64))

        var limits = ImageLimits()
        limits.maxPixels = 96 * 64 - 1
        for bytes in [jpeg, try ImageCodec.encodeWebP(picture), try ImageCodec.encodeHEIC(picture)] {
            XCTAssertThrowsError(try ImageCodec.probe(bytes, limits: limits)) { error in
                guard case ImageError.tooLarge(let message) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("96x64"), message)
            }
        }
        limits = ImageLimits()
        limits.maxBytes = 100
        XCTAssertThrowsError(try ImageCodec.probe(jpeg, limits: limits)) { error in
            guard case ImageError.tooLarge = error else { return XCTFail("\(error)") }
        }
    }

    func testDecodeForATargetSizeUsesDCTScaling() throws {
        let jpeg = try ImageCodec.encodeJPEG(CodecTests.picture(width: 800, height: 600))
        // The smallest k/8 whose long side still reaches the target.
        for (target, width) in [(800, 800), (700, 700), (650, 700), (500, 500), (300, 300), (100, 100), (10, 100)] {
            XCTAssertEqual(try ImageCodec.decode(jpeg, minimumLongSide: target).width, width, "target \(target)")
        }
        // Other formats decode in full whatever the target.
        XCTAssertEqual(try ImageCodec.decode(try ImageCodec.encodePNG(picture), minimumLongSide: 10).width, 96)
    }

    func testAHEICWhoseStreamDeclaresUnknownColoursIsRefusedBeforeDecoding() throws {
        // Found by ./ops/fuzz: an HEVC stream whose VUI gives matrix coefficients H.273 does not
        // define. libheif 1.15's libde265 plugin fails the decode and leaks the picture it made
        // (12 KB a file): the structure check reads each SPS as far as its colour description
        // and refuses the file as damaged, naming why. Real pictures' colours (the 10-bit P3 and
        // PQ seeds carry theirs in the stream) still decode.
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fuzz")
        let found = [UInt8](try Data(contentsOf: fuzz.appendingPathComponent(
            "regressions/heic/leak-bf3e4fa0256842244f950c4508c648616576b5da")))
        let (code, message) = HEIFExtentTests.cProbe(found)
        XCTAssertEqual(code, Int32(AC_CORRUPT))
        XCTAssertTrue(message.contains("declares colours that are not defined"), message)
        XCTAssertThrowsError(try ImageCodec.decode(found)) { error in
            XCTAssertEqual(error as? ImageError, .damaged(.heic))
        }
        for seed in ["heic.heic", "heic-10bit-p3.heic", "heic-hdr-pq.heic", "heic-alpha.heic", "heic-rotated.heic"] {
            let bytes = [UInt8](try Data(contentsOf: fuzz.appendingPathComponent("seeds/heic/\(seed)")))
            XCTAssertNoThrow(try ImageCodec.decode(bytes), seed)
        }
    }

    func testAHEICWhoseItemReferencesLoopIsRefused() throws {
        // Found by ./ops/fuzz: libheif 1.15 decoded a grid whose tile was its own alpha image
        // recursively, a thread per level, past 2.5 GB for a 1 KB file. The fuzzer's input and
        // the same loop made by hand (the alpha grid's tile made the primary grid) are refused
        // as damaged from the header, before libheif decodes anything.
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fuzz")
        let found = [UInt8](try Data(contentsOf: fuzz.appendingPathComponent(
            "regressions/heic/oom-03cfbac808ba627e5fb7e11608a1550e5c3f68cf")))
        var made = [UInt8](try Data(contentsOf: fuzz.appendingPathComponent("seeds/heic/heic-alpha.heic")))
        XCTAssertEqual(try ImageCodec.decode(made).channels, 4, "the seed decodes, with alpha")
        // iref: dimg 2 → 1 (primary grid), dimg 4 → 3 (alpha grid), auxl 4 → 2; the alpha
        // grid's tile becomes item 2 itself.
        let dimg = Array("dimg".utf8)
        let second = try XCTUnwrap(made.indices.filter { made[$0...].starts(with: dimg) }.dropFirst().first)
        XCTAssertEqual(Array(made[(second + 4)..<(second + 10)]), [0, 4, 0, 1, 0, 3])
        made[second + 9] = 2
        for (name, bytes) in [("found by the fuzzer", found), ("made by hand", made)] {
            XCTAssertThrowsError(try ImageCodec.probe(bytes), name) { error in
                XCTAssertEqual(error as? ImageError, .damaged(.heic), name)
            }
            XCTAssertThrowsError(try ImageCodec.decode(bytes), name) { error in
                XCTAssertEqual(error as? ImageError, .damaged(.heic), name)
            }
        }
    }

    func testAHEICWhoseSizesDisagreeIsRefusedBeforeLibheifDecodes() throws {
        // Found by ./ops/fuzz: a 733-byte file whose grid descriptor lies past the end of its
        // 'idat' (libheif 1.15 reads on into the next box and took 27759 × 14441 from it) and
        // whose tile has no 'ispe' took the process past 2.3 GB. Refused as damaged from the
        // header, as is a picture whose HEVC stream is larger than its 'ispe' says (made by
        // hand: our own HEIC with every 'ispe' shrunk to 64 × 48).
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fuzz")
        let found = [UInt8](try Data(contentsOf: fuzz.appendingPathComponent(
            "regressions/heic/oom-bedf6ebb18aec8525d4de1d4a5aaad323792d520")))
        var shrunk = try ImageCodec.encodeHEIC(CodecTests.picture(width: 640, height: 480), quality: 80)
        XCTAssertEqual(try ImageCodec.decode(shrunk).width, 640, "the original decodes")
        let ispe = Array("ispe".utf8)
        let boxes = shrunk.indices.filter { shrunk[$0...].starts(with: ispe) }
        XCTAssertFalse(boxes.isEmpty)
        for box in boxes {
            shrunk.replaceSubrange((box + 8)..<(box + 16), with: [0, 0, 0, 64, 0, 0, 0, 48])
        }
        for (name, bytes) in [("found by the fuzzer", found), ("ispe under the HEVC picture", shrunk)] {
            XCTAssertThrowsError(try ImageCodec.probe(bytes), name) { error in
                XCTAssertEqual(error as? ImageError, .damaged(.heic), name)
            }
            XCTAssertThrowsError(try ImageCodec.decode(bytes), name) { error in
                XCTAssertEqual(error as? ImageError, .damaged(.heic), name)
            }
        }
    }

    func testDamagedFilesGiveErrorsNotCrashes() throws {
        let webp = try ImageCodec.encodeWebP(picture)
        let heic = try ImageCodec.encodeHEIC(picture)
        var generator = SystemRandomNumberGenerator()
        let random = (0..<2048).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var riffHeader = Array(webp.prefix(12))
        riffHeader[4] = 0xFF  // a RIFF size far beyond the data
        let cases: [(String, [UInt8])] = [
            ("WebP header only", Array(webp.prefix(16))),
            ("truncated WebP", Array(webp.prefix(webp.count / 2))),
            ("WebP signature then random", riffHeader + random),
            ("HEIC ftyp only", Array(heic.prefix(24))),
            ("truncated HEIC", Array(heic.prefix(heic.count / 2))),
            ("HEIC ftyp then random", Array(heic.prefix(24)) + random),
        ]
        for (name, bytes) in cases {
            XCTAssertNotNil(ImageFormat.sniff(bytes), "\(name) still looks like its format")
            XCTAssertThrowsError(try ImageCodec.decode(bytes), name) { error in
                XCTAssertTrue(error is ImageError, "\(name): \(error)")
                XCTAssertFalse((error as? ImageError)?.message.isEmpty ?? true, name)
            }
        }
    }
}
