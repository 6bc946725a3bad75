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
}
