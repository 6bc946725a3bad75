import AtelierImaging
import XCTest

/// ThumbHash placeholders: the reference encoder's bytes, and what a client paints from them.
final class ThumbHashTests: XCTestCase {
    /// RGBA: red rises to the right, green downward, blue in diagonal bands; alpha rises to the
    /// right when `alpha`, else opaque (then given as RGB).
    static func gradient(_ w: Int, _ h: Int, alpha: Bool) -> PixelBuffer {
        var pixels: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                pixels += [UInt8(x * 255 / max(1, w - 1)), UInt8(y * 255 / max(1, h - 1)), UInt8((x + y) * 97 % 256)]
                if alpha { pixels.append(UInt8(x * 255 / max(1, w - 1))) }
            }
        }
        return PixelBuffer(width: w, height: h, channels: alpha ? 4 : 3, pixels: pixels)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testTheBytesAreTheReferenceEncoders() {
        // From a transcription of evanw/thumbhash's Swift encoder (Float32), run once on the same
        // images: clients decode our hashes with that project's libraries.
        let expected = [
            (100, 75, false, "df070a3d9a7077777088878778777777808008f878"),
            (60, 100, false, "e0f7093c1a700787877877877777808007f878"),
            (80, 80, true, "a358861d0c37b387b088877778b3b038fb7480877878878877"),
            (33, 7, false, "e0f709399e70777870787878828018f878"),
        ]
        for (w, h, alpha, reference) in expected {
            XCTAssertEqual(Self.hex(ThumbHash.encode(Self.gradient(w, h, alpha: alpha))), reference, "\(w)x\(h) alpha \(alpha)")
        }
    }

    func testAPlaceholderKeepsTheAverageColourAndTheLayout() throws {
        // Left half brick red, right half sky blue, 400 × 300 (encoded from a 100 × 75 copy).
        var photo = PixelBuffer(width: 400, height: 300, channels: 3, fill: 0)
        for y in 0..<300 {
            for x in 0..<400 {
                let colour: [UInt8] = x < 200 ? [190, 60, 40] : [70, 140, 220]
                for k in 0..<3 { photo.pixels[(y * 400 + x) * 3 + k] = colour[k] }
            }
        }
        let hash = ThumbHash.encode(photo)
        XCTAssertLessThanOrEqual(hash.count, 25)
        XCTAssertEqual(ThumbHash.aspectRatio(hash), 4.0 / 3, accuracy: 0.1)
        let placeholder = try XCTUnwrap(ThumbHash.decode(hash))
        XCTAssertEqual(placeholder.width, 32)
        XCTAssertEqual(placeholder.height, 23, accuracy: 1)
        func mean(_ xs: Range<Int>, _ k: Int) -> Double {
            let values = (0..<placeholder.height).flatMap { y in xs.map { Double(placeholder.pixels[(y * placeholder.width + $0) * 4 + k]) } }
            return values.reduce(0, +) / Double(values.count)
        }
        XCTAssertGreaterThan(mean(0..<10, 0), mean(22..<32, 0) + 60, "red on the left")
        XCTAssertGreaterThan(mean(22..<32, 2), mean(0..<10, 2) + 60, "blue on the right")
        for k in 0..<3 {
            let expected = (Double([190, 60, 40][k]) + Double([70, 140, 220][k])) / 2
            XCTAssertEqual(mean(0..<32, k), expected, accuracy: 16, "average of channel \(k)")
        }
        XCTAssertTrue(stride(from: 3, to: placeholder.pixels.count, by: 4).allSatisfy { placeholder.pixels[$0] == 255 }, "opaque")
    }

    func testAlphaAndAPortraitShapeSurvive() throws {
        let hash = ThumbHash.encode(Self.gradient(60, 90, alpha: true))
        XCTAssertLessThan(ThumbHash.aspectRatio(hash), 1, "portrait")
        let placeholder = try XCTUnwrap(ThumbHash.decode(hash))
        let (w, h) = (placeholder.width, placeholder.height)
        func alpha(_ x: Int) -> Double { (0..<h).map { Double(placeholder.pixels[($0 * w + x) * 4 + 3]) }.reduce(0, +) / Double(h) }
        XCTAssertLessThan(alpha(0), alpha(w - 1) - 100, "transparent on the left, opaque on the right")
    }

    func testAnyBytesDecodeToAPlaceholderOrNothing() {
        XCTAssertNil(ThumbHash.decode([]))
        XCTAssertNil(ThumbHash.decode([1, 2, 3, 4]))
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 5...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let image = ThumbHash.decode(bytes) {
                XCTAssertLessThanOrEqual(max(image.width, image.height), 32)
            }
        }
    }
}
