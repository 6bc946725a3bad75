import Foundation

/// Ink along the edges of a photo, as the cartoon, comic and pop art styles draw it: the
/// difference of Gaussians of the luma (``FloatPlane/differenceOfGaussians(sigma:tau:)``)
/// turned into coverage with Winnemöller's soft step — 0 where D ≥ 0, 1 − (1 + tanh(φ·D)) =
/// −tanh(φ·D) below. Each style runs it on the reduced image it works on (half or a quarter of
/// the photo) and reads the coverage back bilinearly, so lines come out smooth and a 2048 px
/// photo pays for a 1024 px one.
///
/// Isolated specks — a blot of ink on a pit in concrete or a fleck of texture the smoothing
/// left — are what makes a drawing look dirty: every connected patch of ink (8-connected,
/// coverage above 0.1) smaller than `minimumArea` is cleared; lines are long, so they keep
/// theirs. Linear in the pixels: one pass, each inked pixel visited once.
package struct InkLines: Sendable {
    /// σ of the narrow Gaussian, in pixels of the image given (at least 0.5).
    package var sigma: Float
    /// Weight of the wide Gaussian (0.98 in both papers).
    package var tau: Float = 0.98
    /// Steepness of the soft step, per unit of luma on a 0…1 scale.
    package var phi: Float
    /// Ink patches smaller than this many pixels (of the image given) are cleared; the styles
    /// set 40 pixels of the 1024-px image.
    package var minimumArea: Float

    package init(sigma: Float, phi: Float, minimumArea: Float) {
        (self.sigma, self.phi, self.minimumArea) = (sigma, phi, minimumArea)
    }

    /// Ink coverage 0…1 of `image` (its luma), at its size.
    package func coverage(_ image: PixelBuffer) -> FloatPlane {
        let luma = FloatPlane(luma: image)
        let difference = luma.differenceOfGaussians(sigma: max(0.5, sigma), tau: tau)
        let (w, h) = (luma.width, luma.height), step = phi / 255
        var ink = [Float](repeating: 0, count: w * h)
        difference.values.withUnsafeBufferPointer { source in
            ink.withUnsafeMutableBufferPointer { target in
                let (d, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(h) { rows in
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) where d[i] < 0 {
                        dst[i] = Self.negativeTanh(step * d[i])
                    }
                }
            }
        }
        return Self.withoutSpecks(FloatPlane(width: w, height: h, values: ink), minimumArea: max(2, Int(minimumArea.rounded())))
    }

    /// −tanh(x) for x ≤ 0 by the Padé form x(27 + x²)/(27 + 9x²), exact at 0 and reaching 1 at
    /// x = −3 (within 2 % of tanh between): a division instead of two exponentials per pixel.
    @inline(__always)
    static func negativeTanh(_ x: Float) -> Float {
        guard x > -3 else { return 1 }
        let x2 = x * x
        return -x * (27 + x2) / (27 + 9 * x2)
    }

    /// `ink` with every 8-connected patch of coverage > 0.1 smaller than `minimumArea` cleared.
    static func withoutSpecks(_ ink: FloatPlane, minimumArea: Int) -> FloatPlane {
        let (w, h) = (ink.width, ink.height)
        var out = ink.values
        var seen = [Bool](repeating: false, count: w * h)
        var patch: [Int32] = [], stack: [Int32] = []
        out.withUnsafeMutableBufferPointer { values in
            seen.withUnsafeMutableBufferPointer { visited in
                let (p, v) = (values.baseAddress!, visited.baseAddress!)
                for start in 0..<(w * h) where !v[start] && p[start] > 0.1 {
                    patch.removeAll(keepingCapacity: true)
                    stack.append(Int32(start))
                    v[start] = true
                    // Walk the whole patch (its size decides), remembering it to clear.
                    while let last = stack.popLast() {
                        let i = Int(last)
                        patch.append(last)
                        let (x, y) = (i % w, i / w)
                        for dy in -1...1 {
                            let yy = y + dy
                            guard yy >= 0, yy < h else { continue }
                            for dx in -1...1 {
                                let xx = x + dx
                                guard xx >= 0, xx < w else { continue }
                                let j = yy * w + xx
                                if !v[j] && p[j] > 0.1 {
                                    v[j] = true
                                    stack.append(Int32(j))
                                }
                            }
                        }
                    }
                    if patch.count < minimumArea {
                        for i in patch { p[Int(i)] = 0 }
                    }
                }
            }
        }
        return FloatPlane(width: w, height: h, values: out)
    }

}
