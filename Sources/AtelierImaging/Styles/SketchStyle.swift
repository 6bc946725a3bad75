import Foundation

/// `sketch` — pencil drawing from sketch and tone (Lu, Xu & Jia, NPAR 2012).
///
/// 1. Stroke map, at a working size of about 1024 px (long side): G = |∂x L| + |∂y L| of the
///    lightly smoothed luma. Each pixel is classified to the one of 8 directions (0°, 22.5°, …)
///    whose line segment (``FloatPlane/lineSums(angle:radius:thickness:)``, radius = long
///    side ÷ 64) collects the most gradient around it; then each direction's share of G is
///    drawn along its own line (1 px thicker each side), and the eight are summed: strokes run
///    along edges and overshoot their ends a little, as a hand's do. S = (1 − S′/S′₉₉)^γ with
///    S′₉₉ the 99th percentile (a robust maximum), γ = 1 + 1.5·i.
/// 2. Tone map: the luma's histogram matched to the paper's model of pencil drawings — a
///    bright paper layer (Laplacian at white, σb = 9), a uniform mid-tone layer (105…225) and a
///    dark layer (Gaussian at 90, σd = 11), weighted 76 : 22 : 2 at i = 0 (mostly paper), the
///    paper's 52 : 37 : 11 at 0.5 and 42 : 29 : 29 at 1 (its darkest group).
/// 3. Pencil texture: T = H^β with H a procedural tile of 45° graphite hatching (value noise
///    64 px along the stroke, two across) and β = ln J / ln mean(H), so the texture's
///    local mean follows the tone J and its strokes show more where the tone is darker — the
///    paper's closed form without its smoothness term (β comes from a smooth tone already).
/// 4. Result = S · T, gray (returned as RGB so every style encodes the same way).
package struct SketchStyle: Sendable {
    package var intensity: Float = 0.5

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    static let directions = 8

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let (w, h) = (image.width, image.height)
        let luma = FloatPlane(luma: image)
        let strokes = strokeMap(image).upsampled(width: w, height: h)
        let tone = toneCurve(luma)
        // β per luma value; ln H per tile texel.
        let logMean = log(Self.pencilMean)
        let beta = tone.map { max(0, log(max(1e-3, $0)) / logMean) }
        let tile = Self.pencilLogTile, size = Self.tileSize
        var out = [UInt8](repeating: 0, count: w * h * 3)
        luma.values.withUnsafeBufferPointer { lumaBuffer in
            strokes.values.withUnsafeBufferPointer { strokeBuffer in
                beta.withUnsafeBufferPointer { betaBuffer in
                    tile.withUnsafeBufferPointer { tileBuffer in
                        out.withUnsafeMutableBufferPointer { target in
                            let (l, s, b, t, dst) = (lumaBuffer.baseAddress!, strokeBuffer.baseAddress!, betaBuffer.baseAddress!,
                                                     tileBuffer.baseAddress!, target.baseAddress!)
                            Parallel.rows(h) { rows in
                                for y in rows {
                                    let tileRow = t + (y & (size - 1)) * size
                                    for x in 0..<w {
                                        let index = y * w + x
                                        let texture = exp(b[Int(l[index])] * tileRow[x & (size - 1)])
                                        let value = UInt8(max(0, min(255, 255 * s[index] * texture + 0.5)))
                                        let o = dst + index * 3
                                        o[0] = value; o[1] = value; o[2] = value
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }

    /// S (0 = a full stroke, 1 = paper) at the working size.
    package func strokeMap(_ image: PixelBuffer) -> FloatPlane {
        let factor = max(1, Int(image.styleScale.rounded()))
        let work = factor > 1 ? image.resized(width: max(1, image.width / factor), height: max(1, image.height / factor)) : image
        let luma = FloatPlane(luma: work).gaussianBlurred(sigma: 0.8)
        let (w, h) = (luma.width, luma.height)
        var gradient = [Float](repeating: 0, count: w * h)
        luma.values.withUnsafeBufferPointer { source in
            gradient.withUnsafeMutableBufferPointer { target in
                let (p, g) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(h) { rows in
                    for y in rows {
                        for x in 0..<w {
                            let i = y * w + x
                            let dx = x + 1 < w ? abs(p[i + 1] - p[i]) : 0
                            let dy = y + 1 < h ? abs(p[i + w] - p[i]) : 0
                            g[i] = (dx + dy) / 255
                        }
                    }
                }
            }
        }
        let edges = FloatPlane(width: w, height: h, values: gradient)
        let radius = max(2, Int((Float(max(w, h)) / 64).rounded()))
        let angles = (0..<Self.directions).map { Float($0) * .pi / Float(Self.directions) }
        // Classification: the direction whose line collects the most gradient.
        var best = [Float](repeating: -1, count: w * h), label = [UInt8](repeating: 0, count: w * h)
        for (n, angle) in angles.enumerated() {
            let response = edges.lineSums(angle: angle, radius: radius)
            for i in 0..<(w * h) where response.values[i] > best[i] {
                best[i] = response.values[i]; label[i] = UInt8(n)
            }
        }
        // Each direction's share of the gradient, drawn along its line.
        var sum = [Float](repeating: 0, count: w * h)
        for (n, angle) in angles.enumerated() {
            var share = [Float](repeating: 0, count: w * h)
            for i in 0..<(w * h) where label[i] == UInt8(n) { share[i] = gradient[i] }
            let drawn = FloatPlane(width: w, height: h, values: share).lineSums(angle: angle, radius: radius, thickness: 1)
            for i in 0..<(w * h) { sum[i] += drawn.values[i] }
        }
        let robustMax = Self.percentile99(of: sum)
        let gamma = 1 + 1.5 * intensity
        return FloatPlane(width: w, height: h, values: sum.map { pow(1 - min(1, $0 / robustMax), gamma) })
    }

    /// The 99th percentile of the positive values (to 1/1024 of the largest): the normaliser
    /// of the stroke sums, which one outlier pixel cannot move.
    static func percentile99(of values: [Float]) -> Float {
        let largest = values.max() ?? 0
        guard largest > 0 else { return 1 }
        var bins = [Int](repeating: 0, count: 1024), positive = 0
        for v in values where v > 0 {
            bins[min(1023, Int(v / largest * 1024))] += 1
            positive += 1
        }
        var seen = 0
        for (bin, count) in bins.enumerated() {
            seen += count
            if seen * 100 >= positive * 99 { return max(1e-6, Float(bin + 1) / 1024 * largest) }
        }
        return largest
    }

    /// J(v) in 0…1 for each luma v: the histogram of `luma` matched to the pencil tone model.
    func toneCurve(_ luma: FloatPlane) -> [Float] {
        var histogram = [Double](repeating: 0, count: 256)
        for v in luma.values { histogram[Int(max(0, min(255, v)))] += 1 }
        let target = Self.toneModel(weights: toneWeights)
        var (source, model) = ([Double](repeating: 0, count: 256), [Double](repeating: 0, count: 256))
        var (a, b) = (0.0, 0.0)
        let total = histogram.reduce(0, +), modelTotal = target.reduce(0, +)
        for v in 0..<256 {
            a += histogram[v]; b += target[v]
            source[v] = a / total; model[v] = b / modelTotal
        }
        var t = 0
        return (0..<256).map { v in
            while t < 255 && model[t] < source[v] { t += 1 }
            return Float(t) / 255
        }
    }

    /// Bright, mid and dark weights of the tone model at this intensity.
    var toneWeights: (Double, Double, Double) {
        let i = Double(intensity)
        let (low, mid, high) = ((76.0, 22.0, 2.0), (52.0, 37.0, 11.0), (42.0, 29.0, 29.0))
        func mix(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }
        return i < 0.5 ? (mix(low.0, mid.0, i * 2), mix(low.1, mid.1, i * 2), mix(low.2, mid.2, i * 2))
            : (mix(mid.0, high.0, i * 2 - 1), mix(mid.1, high.1, i * 2 - 1), mix(mid.2, high.2, i * 2 - 1))
    }

    /// The paper's tone distribution over 0…255 (unnormalised).
    static func toneModel(weights: (Double, Double, Double)) -> [Double] {
        let (sigmaB, ua, ub, muD, sigmaD) = (9.0, 105.0, 225.0, 90.0, 11.0)
        return (0..<256).map { v in
            let value = Double(v)
            let bright = exp(-(255 - value) / sigmaB) / sigmaB
            let mild = (ua...ub).contains(value) ? 1 / (ub - ua) : 0
            let dark = exp(-(value - muD) * (value - muD) / (2 * sigmaD * sigmaD)) / (2 * Double.pi * sigmaD).squareRoot()
            return weights.0 * bright + weights.1 * mild + weights.2 * dark
        }
    }

    static let tileSize = 256
    /// ln H of the pencil tile: graphite hatching along 45° (u = x + y), value noise 64 px
    /// long and 2 px across each stroke, with a finer grain; H in about 0.6…1.
    static let pencilLogTile: [Float] = pencilTile.map { log($0) }
    static let pencilTile: [Float] = StyleNoise.tile(size: tileSize) { x, y in
        let (u, v) = (x + y, x - y + 256)
        let stroke = StyleNoise.value(u / 64, v / 2, periodX: 4, periodY: 128)
        let grain = StyleNoise.value(x / 4, y / 4, periodX: 64, periodY: 64, seed: 1)
        return 1 - 0.35 * pow(stroke, 1.5) - 0.06 * grain
    }
    static let pencilMean: Float = pencilTile.reduce(0, +) / Float(pencilTile.count)
}
