import AtelierImaging
import XCTest

/// The blur behind the styles: its spread is the σ asked for, on both paths (exact kernel up
/// to σ = 3, three boxes above), and it keeps the mean.
final class FilterTests: XCTestCase {
    /// Measured standard deviation of the blurred image of a single bright pixel, along x.
    func spread(sigma: Float, size: Int = 121) -> (sigma: Float, total: Float) {
        var values = [Float](repeating: 0, count: size * size)
        values[(size / 2) * size + size / 2] = 1000
        let blurred = FloatPlane(width: size, height: size, values: values).gaussianBlurred(sigma: sigma)
        var total: Float = 0, second: Float = 0
        for y in 0..<size {
            for x in 0..<size {
                let v = blurred.values[y * size + x], dx = Float(x - size / 2)
                total += v
                second += v * dx * dx
            }
        }
        return ((second / total).squareRoot(), total)
    }

    func testBlurSpreadMatchesSigmaOnBothPaths() {
        for sigma: Float in [1, 2.5, 4, 7, 14] {
            let measured = spread(sigma: sigma)
            XCTAssertEqual(measured.sigma, sigma, accuracy: sigma * 0.05, "σ \(sigma)")
            XCTAssertEqual(measured.total, 1000, accuracy: 1, "σ \(sigma) keeps the mass")
        }
    }

    func testBlurIsSymmetricAndClampsEdges() {
        // A constant image stays constant, edges included (clamping, not zero padding).
        let flat = FloatPlane(width: 40, height: 30, values: [Float](repeating: 77, count: 1200))
        for sigma: Float in [1.5, 9] {
            let blurred = flat.gaussianBlurred(sigma: sigma)
            XCTAssertEqual(blurred.values.min()!, 77, accuracy: 0.01)
            XCTAssertEqual(blurred.values.max()!, 77, accuracy: 0.01)
        }
    }
}
