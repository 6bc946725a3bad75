import Foundation

/// What can be measured about a photo without knowing what is in it. Captions and critiques
/// (issue 6) are composed from these numbers, so each is a documented, tested quantity.
/// Everything is measured on a copy whose long side is ``ImageMeasurements/analysisSize``, so
/// the numbers do not depend on the upload's resolution.
package struct ImageMeasurements: Sendable, Equatable {
    package static let analysisSize = 512

    /// Width ÷ height of the original.
    package var aspectRatio: Double
    /// 256 bins of Rec. 601 luma, fractions summing to 1.
    package var lumaHistogram: [Double]
    /// Mean luma, 0…1.
    package var meanLuma: Double
    /// Fraction of pixels at luma ≤ 2 (crushed shadows) and ≥ 253 (blown highlights).
    package var clippedShadows: Double
    package var clippedHighlights: Double
    /// RMS contrast: standard deviation of luma, 0…1 scale (0.5 is the maximum: half black, half white).
    package var rmsContrast: Double
    /// Variance of the 4-neighbour Laplacian of luma (0…255 scale): sharpness, higher is sharper.
    package var laplacianVariance: Double
    /// Noise standard deviation in luma levels, Immerkær's fast estimate (1996).
    package var noiseSigma: Double
    /// Hasler–Süsstrunk colourfulness M (2003): ~0 gray, ~15 slightly, ~33 moderately, ~59 quite, 80+ very colourful.
    package var colourfulness: Double
    /// Mean HSV saturation, 0…1.
    package var meanSaturation: Double
    /// Up to five colours by median cut, largest share first.
    package var dominantColours: [DominantColour]

    package struct DominantColour: Sendable, Equatable {
        package var red: UInt8
        package var green: UInt8
        package var blue: UInt8
        /// Share of the image, 0…1.
        package var fraction: Double

        package init(red: UInt8, green: UInt8, blue: UInt8, fraction: Double) {
            (self.red, self.green, self.blue, self.fraction) = (red, green, blue, fraction)
        }
    }

    /// Measures `image` (any channel count; alpha ignored).
    package static func measure(_ image: PixelBuffer) -> ImageMeasurements {
        let aspect = Double(image.width) / Double(image.height)
        let small = image.cappingLongSide(analysisSize)
        let rgb = small.channels >= 3 ? small : small.expandedToRGB()
        let luma = small.grayscale()
        let count = Double(luma.pixelCount)

        var histogram = [Double](repeating: 0, count: 256)
        var sum = 0.0, sumSquares = 0.0
        for value in luma.pixels {
            histogram[Int(value)] += 1
            let v = Double(value)
            sum += v
            sumSquares += v * v
        }
        let mean = sum / count
        let variance = max(0, sumSquares / count - mean * mean)
        let shadows = histogram[0...2].reduce(0, +) / count
        let highlights = histogram[253...255].reduce(0, +) / count
        histogram = histogram.map { $0 / count }

        let (laplacian, noise) = Self.laplacianAndNoise(luma)
        let (colourfulness, saturation) = Self.colour(rgb)
        return ImageMeasurements(
            aspectRatio: aspect, lumaHistogram: histogram, meanLuma: mean / 255,
            clippedShadows: shadows, clippedHighlights: highlights, rmsContrast: variance.squareRoot() / 255,
            laplacianVariance: laplacian, noiseSigma: noise, colourfulness: colourfulness,
            meanSaturation: saturation, dominantColours: MedianCut.dominantColours(rgb, count: 5))
    }

    /// Variance of the Laplacian, and Immerkær's noise σ = √(π/2) / (6(W−2)(H−2)) · Σ|I ∗ N|
    /// with N = [1 −2 1; −2 4 −2; 1 −2 1]. Both over the interior pixels.
    static func laplacianAndNoise(_ gray: PixelBuffer) -> (Double, Double) {
        let (w, h) = (gray.width, gray.height)
        guard w >= 3, h >= 3 else { return (0, 0) }
        var lapSum = 0.0, lapSquares = 0.0, noiseSum = 0.0
        gray.pixels.withUnsafeBufferPointer { p in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let c = Int(p[i]), n = Int(p[i - w]), s = Int(p[i + w]), west = Int(p[i - 1]), east = Int(p[i + 1])
                    let lap = Double(n + s + west + east - 4 * c)
                    lapSum += lap
                    lapSquares += lap * lap
                    let corners = Int(p[i - w - 1]) + Int(p[i - w + 1]) + Int(p[i + w - 1]) + Int(p[i + w + 1])
                    noiseSum += Double(abs(corners - 2 * (n + s + west + east) + 4 * c))
                }
            }
        }
        let interior = Double((w - 2) * (h - 2))
        let lapMean = lapSum / interior
        let noise = (Double.pi / 2).squareRoot() * noiseSum / (6 * interior)
        return (max(0, lapSquares / interior - lapMean * lapMean), noise)
    }

    /// Hasler–Süsstrunk M = σ_rgyb + 0.3 μ_rgyb with rg = R − G, yb = (R + G)/2 − B; and mean
    /// HSV saturation.
    static func colour(_ rgb: PixelBuffer) -> (Double, Double) {
        var rgSum = 0.0, rgSquares = 0.0, ybSum = 0.0, ybSquares = 0.0, saturation = 0.0
        let c = rgb.channels
        rgb.pixels.withUnsafeBufferPointer { p in
            for index in 0..<rgb.pixelCount {
                let r = Double(p[index * c]), g = Double(p[index * c + 1]), b = Double(p[index * c + 2])
                let rg = r - g, yb = 0.5 * (r + g) - b
                rgSum += rg; rgSquares += rg * rg
                ybSum += yb; ybSquares += yb * yb
                let high = max(r, g, b), low = min(r, g, b)
                saturation += high > 0 ? (high - low) / high : 0
            }
        }
        let n = Double(rgb.pixelCount)
        let rgMean = rgSum / n, ybMean = ybSum / n
        let rgVar = max(0, rgSquares / n - rgMean * rgMean), ybVar = max(0, ybSquares / n - ybMean * ybMean)
        let m = (rgVar + ybVar).squareRoot() + 0.3 * (rgMean * rgMean + ybMean * ybMean).squareRoot()
        return (m, saturation / n)
    }
}
