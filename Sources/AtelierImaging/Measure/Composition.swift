import Foundation

/// Where a photo's structure lies, from luma gradients and colour contrast: the tilt of its
/// dominant near-horizontal line (a horizon, a shoreline, a table edge) and the centre of its
/// visual mass relative to the rule-of-thirds points. Measured on the ≤ 512 px analysis copy.
package struct Composition: Sendable, Equatable {
    /// Angle of the strongest near-horizontal line in degrees, positive when it rises to the
    /// right; nil when no line within ±20° of level stands out.
    package var horizonTilt: Double?
    /// Share of the strong-edge weight (all angles) that lies on that one line, 0…1.
    package var horizonStrength: Double
    /// Centre of visual mass (edges + colour contrast), 0…1 from the left and from the top.
    package var massX: Double
    package var massY: Double
    /// How concentrated that mass is: 0 spread evenly, → 1 all in one spot.
    package var massConcentration: Double

    /// Distance from the mass centre to the nearest rule-of-thirds intersection and to the
    /// centre, in units of the frame (0…~0.7).
    package var thirdsDistance: Double {
        let thirds: [Double] = [1.0 / 3, 2.0 / 3]
        var nearest = Double.infinity
        for x in thirds {
            for y in thirds { nearest = min(nearest, hypot(massX - x, massY - y)) }
        }
        return nearest
    }
    package var centreDistance: Double { hypot(massX - 0.5, massY - 0.5) }

    static let tiltRange = 20.0, binWidth = 0.25

    package static func measure(_ image: PixelBuffer) -> Composition {
        let small = image.cappingLongSide(ImageMeasurements.analysisSize)
        let luma = small.grayscale()
        let rgb = small.channels >= 3 ? small : small.expandedToRGB()
        let (w, h) = (luma.width, luma.height)
        guard w >= 8, h >= 8 else {
            return Composition(horizonTilt: nil, horizonStrength: 0, massX: 0.5, massY: 0.5, massConcentration: 0)
        }
        var magnitudes = [Float](repeating: 0, count: w * h)
        var horizontalish = [Bool](repeating: false, count: w * h)
        var magnitudeSum = 0.0
        luma.pixels.withUnsafeBufferPointer { p in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let gx = Float(Int(p[i - w + 1]) + 2 * Int(p[i + 1]) + Int(p[i + w + 1]) - Int(p[i - w - 1]) - 2 * Int(p[i - 1]) - Int(p[i + w - 1]))
                    let gy = Float(Int(p[i + w - 1]) + 2 * Int(p[i + w]) + Int(p[i + w + 1]) - Int(p[i - w - 1]) - 2 * Int(p[i - w]) - Int(p[i - w + 1]))
                    let m = (gx * gx + gy * gy).squareRoot()
                    magnitudes[i] = m
                    horizontalish[i] = abs(gy) > 2 * abs(gx)   // an edge within ~27° of level
                    magnitudeSum += Double(m)
                }
            }
        }
        // Hough transform over the strong, roughly horizontal edge pixels: for each candidate
        // angle, the weight that falls on one straight line (ρ = x sin α + y cos α, 1 px bins).
        // Local gradient angles alone cannot see a gentle slope: a slightly tilted edge is a
        // staircase of level runs.
        let meanMagnitude = magnitudeSum / Double((w - 2) * (h - 2))
        let strong = Float(max(48, 2.5 * meanMagnitude))
        var points: [(x: Double, y: Double, weight: Double)] = []
        var strongTotal = 0.0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) where magnitudes[y * w + x] >= strong {
                strongTotal += Double(magnitudes[y * w + x])
                if horizontalish[y * w + x] { points.append((Double(x), Double(y), Double(magnitudes[y * w + x]))) }
            }
        }
        var tilt: Double?
        var strength = 0.0
        if strongTotal > 0, !points.isEmpty {
            let rhoCount = w + h + 2
            var accumulator = [Double](repeating: 0, count: rhoCount)
            var best = (angle: 0.0, weight: 0.0)
            for step in 0...Int(2 * tiltRange / binWidth) {
                let angle = -tiltRange + Double(step) * binWidth
                let (sine, cosine) = (sin(angle * .pi / 180), cos(angle * .pi / 180))
                for index in accumulator.indices { accumulator[index] = 0 }
                for point in points {
                    let rho = Int((point.x * sine + point.y * cosine).rounded()) + w
                    if rho >= 0, rho < rhoCount { accumulator[rho] += point.weight }
                }
                // A line's pixels fall in one or two neighbouring ρ bins.
                var peak = 0.0
                for index in 0..<(rhoCount - 1) { peak = max(peak, accumulator[index] + accumulator[index + 1]) }
                if peak > best.weight { best = (angle, peak) }
            }
            strength = min(1, best.weight / strongTotal)
            if best.weight > 0 { tilt = best.angle }
        }
        let (massX, massY, concentration) = visualMass(rgb, magnitudes: magnitudes)
        return Composition(horizonTilt: tilt, horizonStrength: strength, massX: massX, massY: massY, massConcentration: concentration)
    }

    /// The weighted centroid of ``Saliency/weights(_:magnitudes:)``, and how far the weight's
    /// spread is below that of an evenly weighted frame.
    static func visualMass(_ rgb: PixelBuffer, magnitudes: [Float]) -> (Double, Double, Double) {
        let (w, h) = (rgb.width, rgb.height)
        let weights = Saliency.weights(rgb, magnitudes: magnitudes)
        var total = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let weight = weights[y * w + x]
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
