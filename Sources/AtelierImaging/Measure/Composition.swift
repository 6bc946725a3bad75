import Foundation

/// Where a photo's structure lies, from luma gradients and colour contrast: the tilt of its
/// dominant near-horizontal line (a horizon, a shoreline, a table edge) and the centre of its
/// visual mass relative to the rule-of-thirds points. Measured on the ≤ 512 px analysis copy.
public struct Composition: Sendable, Equatable {
    /// Angle of the strongest near-horizontal line in degrees, positive when it rises to the
    /// right; nil when no line within ±20° of level stands out.
    public var horizonTilt: Double?
    /// Share of the strong-edge weight (all angles) that lies on that line's angle ±1°, 0…1.
    public var horizonStrength: Double
    /// Centre of visual mass (edges + colour contrast), 0…1 from the left and from the top.
    public var massX: Double
    public var massY: Double
    /// How concentrated that mass is: 0 spread evenly, → 1 all in one spot.
    public var massConcentration: Double

    /// Distance from the mass centre to the nearest rule-of-thirds intersection and to the
    /// centre, in units of the frame (0…~0.7).
    public var thirdsDistance: Double {
        [1.0 / 3, 2.0 / 3].flatMap { x in [1.0 / 3, 2.0 / 3].map { y in hypot(massX - x, massY - y) } }.min()!
    }
    public var centreDistance: Double { hypot(massX - 0.5, massY - 0.5) }

    static let tiltRange = 20.0, binWidth = 0.5

    public static func measure(_ image: PixelBuffer) -> Composition {
        let small = image.cappingLongSide(ImageMeasurements.analysisSize)
        let luma = small.grayscale()
        let rgb = small.channels >= 3 ? small : small.expandedToRGB()
        let (w, h) = (luma.width, luma.height)
        guard w >= 8, h >= 8 else {
            return Composition(horizonTilt: nil, horizonStrength: 0, massX: 0.5, massY: 0.5, massConcentration: 0)
        }
        let bins = Int(2 * tiltRange / binWidth) + 1
        var histogram = [Double](repeating: 0, count: bins)
        var strongTotal = 0.0
        var magnitudes = [Float](repeating: 0, count: w * h)
        var magnitudeSum = 0.0
        luma.pixels.withUnsafeBufferPointer { p in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let gx = Float(Int(p[i - w + 1]) + 2 * Int(p[i + 1]) + Int(p[i + w + 1]) - Int(p[i - w - 1]) - 2 * Int(p[i - 1]) - Int(p[i + w - 1]))
                    let gy = Float(Int(p[i + w - 1]) + 2 * Int(p[i + w]) + Int(p[i + w + 1]) - Int(p[i - w - 1]) - 2 * Int(p[i - w]) - Int(p[i - w + 1]))
                    let m = (gx * gx + gy * gy).squareRoot()
                    magnitudes[i] = m
                    magnitudeSum += Double(m)
                }
            }
        }
        let meanMagnitude = magnitudeSum / Double((w - 2) * (h - 2))
        let strong = Float(max(48, 2.5 * meanMagnitude))
        luma.pixels.withUnsafeBufferPointer { p in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let m = magnitudes[i]
                    guard m >= strong else { continue }
                    strongTotal += Double(m)
                    let gx = Double(Int(p[i - w + 1]) + 2 * Int(p[i + 1]) + Int(p[i + w + 1]) - Int(p[i - w - 1]) - 2 * Int(p[i - 1]) - Int(p[i + w - 1]))
                    let gy = Double(Int(p[i + w - 1]) + 2 * Int(p[i + w]) + Int(p[i + w + 1]) - Int(p[i - w - 1]) - 2 * Int(p[i - w]) - Int(p[i - w + 1]))
                    // The edge runs perpendicular to the gradient; seen with y up, its angle is atan(gx/gy).
                    guard abs(gy) > 1e-9 else { continue }
                    let angle = atan(gx / gy) * 180 / .pi
                    guard abs(angle) <= tiltRange else { continue }
                    histogram[Int(((angle + tiltRange) / binWidth).rounded())] += Double(m)
                }
            }
        }
        // The peak of the histogram smoothed over ±1°, refined as the weighted mean around it.
        var tilt: Double?
        var strength = 0.0
        let reach = Int(1 / binWidth)
        if strongTotal > 0, let peak = histogram.indices.max(by: { window(histogram, $0, reach) < window(histogram, $1, reach) }) {
            let inside = window(histogram, peak, reach)
            strength = inside / strongTotal
            if inside > 0 {
                let range = max(0, peak - reach)...min(bins - 1, peak + reach)
                let mean = range.reduce(0.0) { $0 + histogram[$1] * Double($1) } / inside
                tilt = mean * binWidth - tiltRange
            }
        }
        let (massX, massY, concentration) = visualMass(rgb, magnitudes: magnitudes)
        return Composition(horizonTilt: tilt, horizonStrength: strength, massX: massX, massY: massY, massConcentration: concentration)
    }

    private static func window(_ values: [Double], _ centre: Int, _ reach: Int) -> Double {
        values[max(0, centre - reach)...min(values.count - 1, centre + reach)].reduce(0, +)
    }

    /// Weight per pixel = gradient magnitude (detail draws the eye) + distance of its colour
    /// from the frame's mean colour (so does a colour that stands out); the weighted centroid,
    /// and how far the weight's spread is below that of an evenly weighted frame.
    static func visualMass(_ rgb: PixelBuffer, magnitudes: [Float]) -> (Double, Double, Double) {
        let (w, h, c) = (rgb.width, rgb.height, rgb.channels)
        var mean = (0.0, 0.0, 0.0)
        for i in 0..<rgb.pixelCount {
            mean.0 += Double(rgb.pixels[i * c]); mean.1 += Double(rgb.pixels[i * c + 1]); mean.2 += Double(rgb.pixels[i * c + 2])
        }
        let n = Double(rgb.pixelCount)
        mean = (mean.0 / n, mean.1 / n, mean.2 / n)
        var total = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let dr = Double(rgb.pixels[i * c]) - mean.0, dg = Double(rgb.pixels[i * c + 1]) - mean.1, db = Double(rgb.pixels[i * c + 2]) - mean.2
                let weight = Double(magnitudes[i]) / 4 + (dr * dr + dg * dg + db * db).squareRoot()
                let fx = (Double(x) + 0.5) / Double(w), fy = (Double(y) + 0.5) / Double(h)
                total += weight; sx += weight * fx; sy += weight * fy
                sxx += weight * fx * fx; syy += weight * fy * fy
            }
        }
        guard total > 0 else { return (0.5, 0.5, 0) }
        let cx = sx / total, cy = sy / total
        // An even weight over the unit square has variance 1/12 per axis.
        let spread = (max(0, sxx / total - cx * cx) + max(0, syy / total - cy * cy)) / (2.0 / 12)
        return (cx, cy, max(0, min(1, 1 - spread.squareRoot())))
    }
}
