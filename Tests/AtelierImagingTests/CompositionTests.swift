import AtelierImaging
import Foundation
import XCTest

/// Horizon tilt and visual mass on synthetic scenes whose answer is known.
final class CompositionTests: XCTestCase {
    /// Bright sky over dark ground, the boundary through the centre at `degrees` (rising to the
    /// right when positive), with a little texture so it is not a perfect step.
    func horizon(degrees: Double, width: Int = 480, height: Int = 320) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height, channels: 3, fill: 0)
        let slope = tan(degrees * .pi / 180)
        var generator = SeededGenerator(seed: 7)
        for y in 0..<height {
            for x in 0..<width {
                // y grows downwards: a line rising to the right has smaller y on the right.
                let boundary = Double(height) / 2 - (Double(x) - Double(width) / 2) * slope
                let sky = Double(y) < boundary
                let base: Double = sky ? 200 : 60
                let value = UInt8(max(0, min(255, base + Double(generator.next() % 9) - 4)))
                let i = (y * width + x) * 3
                image.pixels[i] = value; image.pixels[i + 1] = value; image.pixels[i + 2] = sky ? 230 : value
            }
        }
        return image
    }

    func testALevelHorizonMeasuresLevel() throws {
        let c = Composition.measure(horizon(degrees: 0))
        XCTAssertEqual(try XCTUnwrap(c.horizonTilt), 0, accuracy: 0.3)
        XCTAssertGreaterThan(c.horizonStrength, 0.5)
    }

    func testATiltedHorizonMeasuresItsAngleAndSide() throws {
        XCTAssertEqual(try XCTUnwrap(Composition.measure(horizon(degrees: 4)).horizonTilt), 4, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(Composition.measure(horizon(degrees: -6)).horizonTilt), -6, accuracy: 0.5)
    }

    func testASteepLineIsNotAHorizon() {
        // A vertical boundary: no near-horizontal line at all.
        var image = PixelBuffer(width: 200, height: 200, channels: 3, fill: 40)
        for y in 0..<200 { for x in 100..<200 { for k in 0..<3 { image.pixels[(y * 200 + x) * 3 + k] = 220 } } }
        let c = Composition.measure(image)
        XCTAssertTrue(c.horizonTilt == nil || c.horizonStrength < 0.05, "\(c)")
    }

    func testVisualMassFollowsTheSubject() {
        // A red disc on gray, centred on the left-upper thirds point.
        var image = PixelBuffer(width: 300, height: 300, channels: 3, fill: 128)
        for y in 0..<300 {
            for x in 0..<300 where hypot(Double(x) - 100, Double(y) - 100) < 30 {
                let i = (y * 300 + x) * 3
                image.pixels[i] = 220; image.pixels[i + 1] = 30; image.pixels[i + 2] = 30
            }
        }
        let c = Composition.measure(image)
        XCTAssertEqual(c.massX, 1.0 / 3, accuracy: 0.03)
        XCTAssertEqual(c.massY, 1.0 / 3, accuracy: 0.03)
        XCTAssertLessThan(c.thirdsDistance, 0.04)
        XCTAssertGreaterThan(c.centreDistance, 0.2)
        XCTAssertGreaterThan(c.massConcentration, 0.6)

        let centred = Composition.measure(PixelBuffer(width: 300, height: 300, channels: 3, fill: 128))
        XCTAssertEqual(centred.massX, 0.5, accuracy: 1e-9)
        XCTAssertEqual(centred.massConcentration, 0, accuracy: 1e-9)
    }
}
