import AtelierImaging
import XCTest

/// Each style changes the image in its characteristic, measurable way (not golden bytes).
final class StyleTests: XCTestCase {
    /// A dark square on a light background: flat regions and one strong edge.
    static func squareOnLight(size: Int = 200) -> PixelBuffer {
        var image = PixelBuffer(width: size, height: size, channels: 3, fill: 210)
        for y in (size / 4)..<(size * 3 / 4) {
            for x in (size / 4)..<(size * 3 / 4) {
                let i = (y * size + x) * 3
                image.pixels[i] = 60; image.pixels[i + 1] = 80; image.pixels[i + 2] = 140
            }
        }
        return image
    }

    func testSketchIsGrayWhiteInFlatLightAreasWithDarkEdgeLines() {
        let image = Self.squareOnLight()
        let sketch = Stylizer.render(image, style: .sketch, parameters: StyleParameters())
        XCTAssertEqual([sketch.width, sketch.height, sketch.channels], [200, 200, 3])
        func value(_ x: Int, _ y: Int) -> Int { Int(sketch.pixels[(y * 200 + x) * 3]) }
        for index in stride(from: 0, to: sketch.pixels.count, by: 3) {
            XCTAssertEqual(sketch.pixels[index], sketch.pixels[index + 1])
            XCTAssertEqual(sketch.pixels[index], sketch.pixels[index + 2])
        }
        let background = value(10, 10), inside = value(100, 100)
        let edge = (45...55).map { value($0, 100) }.min()!
        XCTAssertGreaterThan(background, 235, "flat light background dodges to near white")
        XCTAssertLessThan(inside, background - 20, "the dark square keeps some shading")
        XCTAssertLessThan(edge, inside - 20, "its border is drawn as a line darker than the shading: edge \(edge), inside \(inside)")
    }

    func testIntensityWidensTheStrokes() {
        let image = Self.squareOnLight()
        func darkPixels(_ intensity: Double) -> Int {
            var parameters = StyleParameters()
            parameters.intensity = intensity
            return Stylizer.render(image, style: .sketch, parameters: parameters).pixels.filter { $0 < 200 }.count
        }
        XCTAssertGreaterThan(darkPixels(0.9), darkPixels(0.1))
    }

    func testGaussianBlurPreservesTheMeanAndSmooths() {
        var values = [Float](repeating: 0, count: 64 * 64)
        for i in values.indices where (i / 64 + i % 64) % 2 == 0 { values[i] = 255 }
        let plane = FloatPlane(width: 64, height: 64, values: values)
        let blurred = plane.gaussianBlurred(sigma: 2)
        let mean = { (v: [Float]) in v.reduce(0, +) / Float(v.count) }
        XCTAssertEqual(mean(blurred.values), mean(values), accuracy: 0.5)
        let interior = (10..<54).flatMap { y in (10..<54).map { x in blurred.values[y * 64 + x] } }
        XCTAssertLessThan(interior.max()! - interior.min()!, 2, "a fine checker blurs to flat gray")
    }

    /// A noisy photo-like scene: the square on light ground with grain, so flatness is earned.
    static func grainySquare(size: Int = 200) -> PixelBuffer {
        var image = squareOnLight(size: size)
        var generator = SeededGenerator(seed: 7)
        for i in image.pixels.indices {
            image.pixels[i] = UInt8(max(0, min(255, Int(image.pixels[i]) + Int.random(in: -12...12, using: &generator))))
        }
        return image
    }

    /// Fraction of pixels equal to their right-hand neighbour: 1 for flat colour, ~0 for grain.
    static func flatness(_ image: PixelBuffer) -> Double {
        var same = 0, total = 0
        for y in 0..<image.height {
            for x in 0..<(image.width - 1) {
                let a = (y * image.width + x) * image.channels, b = a + image.channels
                total += 1
                if (0..<image.channels).allSatisfy({ image.pixels[a + $0] == image.pixels[b + $0] }) { same += 1 }
            }
        }
        return Double(same) / Double(total)
    }

    func testCartoonHasFlatRegionsAndDarkOutlines() {
        let image = Self.grainySquare()
        XCTAssertLessThan(Self.flatness(image), 0.2, "the input is grainy")
        let cartoon = Stylizer.render(image, style: .cartoon, parameters: StyleParameters())
        XCTAssertGreaterThan(Self.flatness(cartoon), 0.8, "cartoon regions are flat colour")
        func luma(_ x: Int, _ y: Int) -> Int {
            let i = (y * 200 + x) * 3
            return (Int(cartoon.pixels[i]) * 299 + Int(cartoon.pixels[i + 1]) * 587 + Int(cartoon.pixels[i + 2]) * 114) / 1000
        }
        XCTAssertLessThan((46...54).map { luma($0, 100) }.min()!, 40, "the square's boundary is inked")
        XCTAssertGreaterThan(luma(10, 10), 150, "the light ground stays light")
        XCTAssertGreaterThan(luma(100, 100), 40, "the inside of the square is colour, not ink")
    }

    static func distinctColours(_ image: PixelBuffer) -> Int {
        var seen = Set<Int>()
        for i in stride(from: 0, to: image.pixels.count, by: image.channels) {
            seen.insert(Int(image.pixels[i]) << 16 | Int(image.pixels[i + 1]) << 8 | Int(image.pixels[i + 2]))
        }
        return seen.count
    }

    func testPopArtHasABoldSmallPaletteWithHalftoneDots() {
        let image = Self.grainySquare()
        XCTAssertGreaterThan(Self.distinctColours(image), 1000)
        let style = PopArtStyle(intensity: 0.5)
        let popArt = style.apply(image)
        let levels = style.levels
        XCTAssertLessThanOrEqual(Self.distinctColours(popArt), 2 * levels * levels * levels, "posterised palette plus its dot shades")
        // The dark square is printed with dots: inside it, its colour and the dot shade alternate.
        var counts: [Int: Int] = [:]
        for y in 80..<120 {
            for x in 80..<120 {
                let i = (y * 200 + x) * 3
                counts[Int(popArt.pixels[i]) << 16 | Int(popArt.pixels[i + 1]) << 8 | Int(popArt.pixels[i + 2]), default: 0] += 1
            }
        }
        let dotted = 1 - Double(counts.values.max()!) / 1600
        XCTAssertTrue((0.15...0.85).contains(dotted), "dots cover part of the square, not all of it: \(dotted)")
    }

    func testComicInksTheOutlineAndScreentonesTheShadow() {
        var image = Self.squareOnLight()
        for i in image.pixels.indices where image.pixels[i] < 150 { image.pixels[i] /= 3 }  // a deep shadow
        let comic = ComicStyle(intensity: 0.5).apply(image)
        func luma(_ x: Int, _ y: Int) -> Int {
            let i = (y * 200 + x) * 3
            return (Int(comic.pixels[i]) * 299 + Int(comic.pixels[i + 1]) * 587 + Int(comic.pixels[i + 2]) * 114) / 1000
        }
        XCTAssertLessThan((44...56).map { luma($0, 100) }.min()!, 30, "ink along the boundary")
        let shadow = (70..<130).flatMap { y in (70..<130).map { x in luma(x, y) } }
        XCTAssertGreaterThan(Set(shadow).count, 1, "the shadow carries a screentone, not one flat value")
        XCTAssertGreaterThan(Self.flatness(comic), 0.6)
        XCTAssertGreaterThan(luma(10, 10), 180, "light ground untouched by tone")
    }

    func testWatercolorWashesDarkenTheRimsAndKeepColour() {
        let image = Self.grainySquare()
        let painting = WatercolorStyle(intensity: 0.5).apply(image)
        let before = ImageMeasurements.measure(image), after = ImageMeasurements.measure(painting)
        XCTAssertLessThan(after.laplacianVariance, before.laplacianVariance * 0.7, "washes smooth the grain away")
        XCTAssertGreaterThan(after.meanSaturation, 0.05, "still colour, not gray")
        func luma(_ x: Int, _ y: Int) -> Double {
            let i = (y * 200 + x) * 3
            return 0.299 * Double(painting.pixels[i]) + 0.587 * Double(painting.pixels[i + 1]) + 0.114 * Double(painting.pixels[i + 2])
        }
        let rim = (48...52).map { luma($0, 100) }.min()!
        let inside = (90...110).map { luma($0, 100) }.reduce(0, +) / 21
        XCTAssertLessThan(rim, inside, "pigment pools at the rim: \(rim) vs \(inside)")
        XCTAssertEqual(WatercolorStyle(intensity: 0.5).apply(image), painting, "deterministic")
    }
}
