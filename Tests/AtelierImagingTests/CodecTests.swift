import AtelierImaging
import Foundation
import XCTest

/// The C codec layer through its Swift face: round trips, DCT scaling, limits checked from
/// the header, and hostile inputs answered with errors (never a crash).
final class CodecTests: XCTestCase {
    /// A smooth test picture with detail: gradients and a checker in one corner.
    static func picture(width: Int = 96, height: Int = 64, channels: Int = 3) -> PixelBuffer {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * channels
                let checker: UInt8 = (x / 8 + y / 8) % 2 == 0 ? 40 : 0
                pixels[base] = UInt8(x * 255 / (width - 1))
                if channels >= 3 {
                    pixels[base + 1] = UInt8(y * 255 / (height - 1))
                    pixels[base + 2] = 128 &+ checker
                }
                if channels == 4 { pixels[base + 3] = UInt8(255 - (x + y) % 64) }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    static func meanAbsoluteError(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels else { return .infinity }
        var total = 0
        for index in a.pixels.indices { total += abs(Int(a.pixels[index]) - Int(b.pixels[index])) }
        return Double(total) / Double(a.pixels.count)
    }

    func testPNGRoundTripIsExact() throws {
        for channels in [3, 4] {
            let image = Self.picture(channels: channels)
            let png = try ImageCodec.encodePNG(image)
            XCTAssertEqual(ImageFormat.sniff(png), .png)
            let decoded = try ImageCodec.decode(png)
            XCTAssertEqual(decoded.channels, channels, "PNG decodes to RGBA only when it has alpha")
            XCTAssertEqual(decoded, image)
        }
    }

    func testPNGChannelsFollowTheFile() throws {
        // Small files from the fuzz seeds: a 4-bit palette with tRNS (alpha) and a 16-bit
        // interlaced gray one (no alpha). Decoded straight into the pixel buffer with the
        // channels the probe promised.
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fuzz/seeds/png")
        let palette = [UInt8](try Data(contentsOf: seeds.appendingPathComponent("png-palette-trns.png")))
        let gray = [UInt8](try Data(contentsOf: seeds.appendingPathComponent("png-gray16-interlaced.png")))
        let withAlpha = try ImageCodec.decode(palette)
        XCTAssertEqual([withAlpha.width, withAlpha.height, withAlpha.channels], [16, 12, 4])
        XCTAssertEqual(withAlpha.pixels[3], 0, "tRNS entry 0 is transparent")
        let opaque = try ImageCodec.decode(gray)
        XCTAssertEqual([opaque.width, opaque.height, opaque.channels], [16, 12, 3])
        XCTAssertEqual(opaque.pixels[0], opaque.pixels[1], "gray expands to equal R, G, B")
    }

    func testJPEGRoundTripIsClose() throws {
        let image = Self.picture()
        for progressive in [false, true] {
            let jpeg = try ImageCodec.encodeJPEG(image, quality: 95, progressive: progressive)
            XCTAssertEqual(ImageFormat.sniff(jpeg), .jpeg)
            let decoded = try ImageCodec.decode(jpeg)
            XCTAssertEqual([decoded.width, decoded.height, decoded.channels], [96, 64, 3])
            XCTAssertLessThan(Self.meanAbsoluteError(decoded, image), 3.0, "quality 95 stays close")
        }
        let low = try ImageCodec.encodeJPEG(image, quality: 10)
        let high = try ImageCodec.encodeJPEG(image, quality: 95)
        XCTAssertLessThan(low.count, high.count, "quality trades size")
    }

    func testEncodedResultsCarryNoMetadata() throws {
        // A photo with EXIF in, our encoders out: no APP1 (EXIF/XMP), no text chunks.
        let tagged = Array((try ImageCodec.encodeJPEG(Self.picture()))[0..<2]) + OrientationTests.exifSegment(6, littleEndian: true)
            + Array((try ImageCodec.encodeJPEG(Self.picture()))[2...])
        let decoded = try ImageCodec.decode(tagged)
        let jpeg = try ImageCodec.encodeJPEG(decoded)
        XCTAssertFalse(zip(jpeg, jpeg.dropFirst()).contains { $0 == 0xFF && $1 == 0xE1 }, "no APP1 segment")
        XCTAssertEqual(ExifOrientation.read(jpeg: jpeg), .up)
        let png = try ImageCodec.encodePNG(decoded)
        for chunk in ["eXIf", "tEXt", "iTXt", "zTXt"] {
            XCTAssertNil(png.firstRange(of: Array(chunk.utf8)), chunk)
        }
    }

    func testJPEGDCTScalingDecodesSmaller() throws {
        let jpeg = try ImageCodec.encodeJPEG(Self.picture(width: 200, height: 120))
        for (scale, size) in [(1, [200, 120]), (2, [100, 60]), (4, [50, 30]), (8, [25, 15])] {
            let decoded = try ImageCodec.decode(jpeg, jpegScale: scale)
            XCTAssertEqual([decoded.width, decoded.height], size, "1/\(scale)")
        }
    }

    func testLimitsAreCheckedFromTheHeader() throws {
        // A PNG header claiming 100000 × 100000 pixels, with no pixel data at all.
        var png = try ImageCodec.encodePNG(Self.picture(width: 4, height: 4))
        png.replaceSubrange(16..<24, with: [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0])
        fixIHDRChecksum(&png)
        XCTAssertThrowsError(try ImageCodec.decode(png)) { error in
            guard case ImageError.tooLarge(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("100000x100000"), message)
        }
        var limits = ImageLimits()
        limits.maxPixels = 1000
        XCTAssertThrowsError(try ImageCodec.decode(try ImageCodec.encodeJPEG(Self.picture()), limits: limits)) { error in
            guard case ImageError.tooLarge = error else { return XCTFail("\(error)") }
        }
        limits = ImageLimits()
        limits.maxDimension = 50
        XCTAssertThrowsError(try ImageCodec.decode(try ImageCodec.encodeJPEG(Self.picture()), limits: limits))
    }

    func testProgressiveScanBombIsRefused() throws {
        let jpeg = try ImageCodec.encodeJPEG(Self.picture(), progressive: true)
        let scans = JPEGSegments.scans(in: jpeg)
        XCTAssertGreaterThan(scans.count, 1, "a progressive JPEG has several scans")
        // Repeat the first scan (DC: it decodes the same every time) until the file has 300
        // scans: each one costs libjpeg a pass, and only the scan limit stops it.
        let first = scans[0]
        var bomb = Array(jpeg[..<first.upperBound])
        for _ in 0..<299 { bomb += jpeg[first] }
        bomb += [0xFF, 0xD9]
        XCTAssertThrowsError(try ImageCodec.decode(bomb)) { error in
            guard case ImageError.tooLarge(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("progressive scans"), message)
        }
        // Repeats of the last (refinement) scan no longer fit the coefficients: damaged data,
        // refused at the second copy.
        let last = scans.last!
        bomb = Array(jpeg[..<last.upperBound])
        for _ in 0..<299 { bomb += jpeg[last] }
        bomb += [0xFF, 0xD9]
        XCTAssertThrowsError(try ImageCodec.decode(bomb)) { error in
            XCTAssertEqual(error as? ImageError, .damaged(.jpeg))
        }
    }

    func testBrokenInputsGiveErrorsNotCrashes() throws {
        let jpeg = try ImageCodec.encodeJPEG(Self.picture())
        let png = try ImageCodec.encodePNG(Self.picture())
        var generator = SystemRandomNumberGenerator()
        let random = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("JPEG magic only", [0xFF, 0xD8, 0xFF]),
            ("JPEG header only", Array(jpeg.prefix(200))),
            ("PNG signature only", Array(png.prefix(8))),
            ("truncated PNG", Array(png.prefix(png.count / 2))),
            ("random bytes", random),
            ("random after JPEG magic", [0xFF, 0xD8, 0xFF] + random),
            ("random after PNG signature", Array(png.prefix(8)) + random),
            ("GIF", Array("GIF89a".utf8) + random),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try ImageCodec.decode(bytes), name) { error in
                XCTAssertTrue(error is ImageError, "\(name): \(error)")
                XCTAssertFalse((error as? ImageError)?.message.isEmpty ?? true, name)
            }
        }
        // A JPEG cut in the entropy data is damaged, not a partial picture (libjpeg would fill
        // the rest with grey): TruncationTests has the details.
        XCTAssertThrowsError(try ImageCodec.decode(Array(jpeg.prefix(jpeg.count * 3 / 4)))) { error in
            XCTAssertEqual(error as? ImageError, .damaged(.jpeg))
        }
    }

    private func fixIHDRChecksum(_ png: inout [UInt8]) {
        let chunk = Array(png[12..<29])  // "IHDR" + 13 data bytes
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in chunk {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        crc = ~crc
        png.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
    }
}

/// The byte ranges of a JPEG's scans (SOS segment + its entropy-coded data).
enum JPEGSegments {
    static func scans(in jpeg: [UInt8]) -> [Range<Int>] {
        var scans: [Range<Int>] = []
        var index = 2
        while index + 4 <= jpeg.count {
            guard jpeg[index] == 0xFF else { index += 1; continue }
            let marker = jpeg[index + 1]
            if marker == 0xD9 { break }
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            if marker != 0xDA { index += 2 + length; continue }
            var end = index + 2 + length
            while end + 1 < jpeg.count {
                if jpeg[end] == 0xFF, jpeg[end + 1] != 0x00, !(0xD0...0xD7).contains(jpeg[end + 1]) { break }
                end += 1
            }
            scans.append(index..<end)
            index = end
        }
        return scans
    }
}
