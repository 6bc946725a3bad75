import AtelierImaging
import XCTest

/// Resizing and colour conversion on images whose right answers are known.
final class CoreTests: XCTestCase {
    func testAreaDownscaleAveragesBlocks() {
        // 4×2 gray image → 2×1: each output pixel is the mean of a 2×2 block.
        let image = PixelBuffer(width: 4, height: 2, channels: 1, pixels: [0, 100, 200, 250, 50, 150, 210, 90])
        let small = image.resized(width: 2, height: 1)
        XCTAssertEqual(small.pixels, [75, 188])  // (0+100+50+150)/4 = 75; (200+250+210+90)/4 = 187.5 → 188
    }

    func testHalvingRGBAveragesEachBlockPerChannel() {
        // Exactly half: the integer fast path; every sample the rounded mean of its 2 × 2 block.
        let (width, height) = (64, 48)
        var generator = SeededGenerator(seed: 3)
        let pixels = (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let small = PixelBuffer(width: width, height: height, channels: 3, pixels: pixels).resized(width: 32, height: 24)
        for y in 0..<24 {
            for x in 0..<32 {
                for k in 0..<3 {
                    let block = [(0, 0), (1, 0), (0, 1), (1, 1)].map { Int(pixels[((2 * y + $0.1) * width + 2 * x + $0.0) * 3 + k]) }
                    let mean = (Double(block.reduce(0, +)) / 4 + 0.5).rounded(.down)
                    XCTAssertEqual(Double(small.pixels[(y * 32 + x) * 3 + k]), mean, "(\(x), \(y)) channel \(k)")
                }
            }
        }
    }

    func testNonIntegerDownscaleKeepsTheMean() {
        let width = 301, height = 199
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in pixels.indices { pixels[index] = UInt8((index * 37) % 256) }
        let image = PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
        let small = image.resized(width: 97, height: 61)
        func mean(_ p: PixelBuffer) -> Double { Double(p.pixels.reduce(0) { $0 + Int($1) }) / Double(p.pixels.count) }
        XCTAssertEqual(mean(small), mean(image), accuracy: 1.0, "area averaging preserves the mean")
        XCTAssertEqual([small.width, small.height, small.channels], [97, 61, 3])
    }

    func testFlatImageStaysFlatAtAnySize() {
        let flat = PixelBuffer(width: 37, height: 23, channels: 3, fill: 173)
        for (w, h) in [(10, 7), (74, 46), (37, 5), (200, 3)] {
            XCTAssertTrue(flat.resized(width: w, height: h).pixels.allSatisfy { $0 == 173 }, "\(w)x\(h)")
        }
    }

    func testBilinearUpscaleInterpolates() {
        let image = PixelBuffer(width: 2, height: 1, channels: 1, pixels: [0, 200])
        let big = image.resized(width: 4, height: 1)
        XCTAssertEqual(big.pixels, [0, 50, 150, 200])
    }

    func testCappingTheLongSideKeepsTheAspect() {
        let image = PixelBuffer(width: 400, height: 300, channels: 3, fill: 9)
        let capped = image.cappingLongSide(256)
        XCTAssertEqual([capped.width, capped.height], [256, 192])
        XCTAssertEqual(PixelBuffer(width: 100, height: 50, channels: 3).cappingLongSide(2048).width, 100)
    }

    func testGrayscaleUsesRec601Weights() {
        let image = PixelBuffer(width: 4, height: 1, channels: 3, pixels: [255, 0, 0, 0, 255, 0, 0, 0, 255, 200, 200, 200])
        XCTAssertEqual(image.grayscale().pixels, [76, 150, 29, 200])
    }

    func testCropCopiesTheRectangleAndClipsToTheImage() throws {
        let image = CodecTests.picture(width: 40, height: 30)
        let crop = try XCTUnwrap(image.cropped(x: 5, y: 7, width: 10, height: 4))
        XCTAssertEqual([crop.width, crop.height, crop.channels], [10, 4, 3])
        for y in 0..<4 {
            for x in 0..<10 {
                let a = ((y + 7) * 40 + x + 5) * 3, b = (y * 10 + x) * 3
                XCTAssertEqual(Array(image.pixels[a..<a + 3]), Array(crop.pixels[b..<b + 3]))
            }
        }
        XCTAssertEqual(image.cropped(x: 35, y: -5, width: 20, height: 10).map { [$0.width, $0.height] }, [5, 5], "clipped")
        XCTAssertNil(image.cropped(x: 40, y: 0, width: 5, height: 5), "outside")
        XCTAssertEqual(image.cropped(x: 0, y: 0, width: 40, height: 30), image)
    }
}
