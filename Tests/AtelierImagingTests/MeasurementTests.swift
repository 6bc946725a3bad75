import AtelierImaging
import XCTest

/// Each measurement on synthetic images whose answer is known in advance.
final class MeasurementTests: XCTestCase {
    func testFlatGrayMeasuresNothing() {
        let m = ImageMeasurements.measure(PixelBuffer(width: 64, height: 48, channels: 3, fill: 128))
        XCTAssertEqual(m.aspectRatio, 64.0 / 48.0, accuracy: 1e-9)
        XCTAssertEqual(m.lumaHistogram[128], 1, accuracy: 1e-12)
        XCTAssertEqual(m.meanLuma, 128.0 / 255, accuracy: 1e-9)
        XCTAssertEqual(m.rmsContrast, 0, accuracy: 1e-9)
        XCTAssertEqual(m.laplacianVariance, 0, accuracy: 1e-9)
        XCTAssertEqual(m.noiseSigma, 0, accuracy: 1e-9)
        XCTAssertEqual(m.colourfulness, 0, accuracy: 1e-9)
        XCTAssertEqual(m.meanSaturation, 0, accuracy: 1e-9)
        XCTAssertEqual(m.dominantColours, [.init(red: 128, green: 128, blue: 128, fraction: 1)])
    }

    func testHalfBlackHalfWhiteIsFullyClippedAndMaximallyContrasted() {
        var image = PixelBuffer(width: 40, height: 20, channels: 3, fill: 0)
        for y in 0..<20 { for x in 20..<40 { for k in 0..<3 { image.pixels[(y * 40 + x) * 3 + k] = 255 } } }
        let m = ImageMeasurements.measure(image)
        XCTAssertEqual(m.clippedShadows, 0.5, accuracy: 1e-9)
        XCTAssertEqual(m.clippedHighlights, 0.5, accuracy: 1e-9)
        XCTAssertEqual(m.rmsContrast, 0.5, accuracy: 1e-9)
        XCTAssertEqual(m.dominantColours.count, 2)
        XCTAssertEqual(m.dominantColours.map(\.fraction), [0.5, 0.5])
    }

    func testPureRedColourfulnessMatchesTheFormula() {
        let red = PixelBuffer(width: 8, height: 8, channels: 3, pixels: Array(repeating: [255, 0, 0], count: 64).flatMap { $0 })
        let m = ImageMeasurements.measure(red)
        // σ = 0; μ_rg = 255, μ_yb = 127.5 → M = 0.3 · √(255² + 127.5²)
        XCTAssertEqual(m.colourfulness, 0.3 * (255.0 * 255 + 127.5 * 127.5).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(m.meanSaturation, 1, accuracy: 1e-9)
        XCTAssertEqual(m.dominantColours, [.init(red: 255, green: 0, blue: 0, fraction: 1)])
    }

    func testImmerkaerRecoversTheNoiseLevel() {
        var generator = SeededGenerator(seed: 42)
        for sigma in [5.0, 10.0, 20.0] {
            var image = PixelBuffer(width: 400, height: 300, channels: 1, fill: 128)
            for index in image.pixels.indices {
                // Box–Muller normal noise.
                let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator), u2 = Double.random(in: 0..<1, using: &generator)
                let n = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
                image.pixels[index] = UInt8(max(0, min(255, (128 + sigma * n).rounded())))
            }
            let estimate = ImageMeasurements.measure(image).noiseSigma
            XCTAssertEqual(estimate, sigma, accuracy: sigma * 0.12, "σ = \(sigma)")
        }
    }

    func testSharpEdgesHaveMoreLaplacianVarianceThanBlurredOnes() {
        var sharp = PixelBuffer(width: 128, height: 128, channels: 1, fill: 0)
        for y in 0..<128 { for x in 0..<128 where (x / 8 + y / 8) % 2 == 0 { sharp.pixels[y * 128 + x] = 255 } }
        let blurred = sharp.resized(width: 32, height: 32).resized(width: 128, height: 128)
        let sharpness = ImageMeasurements.measure(sharp).laplacianVariance
        let softness = ImageMeasurements.measure(blurred).laplacianVariance
        XCTAssertGreaterThan(sharpness, softness * 4, "\(sharpness) vs \(softness)")
    }

    func testMeasurementsDoNotDependOnResolution() {
        let large = CodecTests.picture(width: 1200, height: 800)
        let small = large.resized(width: 600, height: 400)
        let a = ImageMeasurements.measure(large), b = ImageMeasurements.measure(small)
        XCTAssertEqual(a.meanLuma, b.meanLuma, accuracy: 0.01)
        XCTAssertEqual(a.colourfulness, b.colourfulness, accuracy: 1.0)
    }
}

/// A small deterministic generator (SplitMix64) so the noise test is the same every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
