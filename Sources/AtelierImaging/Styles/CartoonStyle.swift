import Foundation

/// `cartoon` — real-time video abstraction (Winnemöller, Olsen & Gooch 2006) on a photo.
///
/// Everything runs at half size and is scaled up at the end (bilinear): a cartoon has no detail
/// finer than that, and the lines come out anti-aliased.
/// 1. Abstraction: a 3 × 3 median (``PixelBuffer/median3x3()``) removes isolated specks, then
///    ``DomainTransform`` edge-preserving smoothing (Gastal & Oliveira 2011, the O(n) stand-in
///    for the paper's iterated separable bilateral filter), σs = (12 + 36·i)·scale px, σr =
///    20 + 30·i: textures flatten, object boundaries stay.
/// 2. Edges: ``InkLines`` — the difference of Gaussians of the abstracted luma (σe = (1 +
///    i)·scale, τ = 0.98) through the soft step 1 + tanh(φe·D), φe = 300 + 300·i per unit of
///    luma, with ink patches smaller than 40 px (at 1024 px) removed.
/// 3. Soft luminance quantisation: Q = b + (Δq/2)·tanh(φq·(Y − b)) with b the bin boundary
///    nearest the luma Y (0…255), q = 9 − ⌊4·i⌋ bins of width Δq = 255/q. φq follows the local
///    luma gradient, as in the paper: soft ramps (φq = 0.25) where the photo is smooth, so a sky
///    does not band, sharp steps (φq = 1 + i) where it has structure. Chroma (Cb, Cr) is
///    the abstraction's, × (1.1 + 0.3·i): cartoons are a little more vivid than photos.
/// 4. Ink: the colour blended toward near-black by the edge coverage.
/// `i` is `intensity` (0.5 default); `scale` is the long side ÷ 1024.
package struct CartoonStyle: Sendable {
    package var intensity: Float

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    /// Quantisation bins at this intensity.
    package var bins: Int { 9 - Int(4 * intensity) }

    /// φq levels of the quantisation table, from the smoothest gradient to the strongest.
    static let sharpnessLevels = 8

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.convertedToRGB()
        let scale = rgb.styleScale, i = intensity
        // Everything at half size (a cartoon has no detail finer than that), then scaled up.
        let reduced = min(rgb.width, rgb.height) >= 32
        let work = reduced ? rgb.resized(width: rgb.width / 2, height: rgb.height / 2) : rgb
        let factor = Float(rgb.width) / Float(work.width)
        let smooth = DomainTransform(sigmaSpatial: (12 + 36 * i) * scale / factor, sigmaRange: 20 + 30 * i).apply(work.median3x3())
        let workScale = scale / factor
        let lines = InkLines(sigma: (1.0 + 1.0 * i) * workScale, phi: 300 + 300 * i, minimumArea: 40 * workScale * workScale)
        let ink = lines.coverage(smooth)
        // Luma gradient (Sobel, ÷ 8 → luma per work pixel) picks φq.
        let gradient = FloatPlane(luma: smooth).gaussianBlurred(sigma: 0.7).sobelMagnitude()
        let table = quantisationTable(workPixel: factor, scale: scale)
        let chroma = 1.1 + 0.3 * i
        let (w, h) = (work.width, work.height)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        smooth.pixels.withUnsafeBufferPointer { source in
            ink.values.withUnsafeBufferPointer { inkBuffer in
                gradient.values.withUnsafeBufferPointer { gradientBuffer in
                    table.values.withUnsafeBufferPointer { tableBuffer in
                        out.withUnsafeMutableBufferPointer { target in
                            let (src, e, g, q, dst) = (source.baseAddress!, inkBuffer.baseAddress!, gradientBuffer.baseAddress!,
                                                       tableBuffer.baseAddress!, target.baseAddress!)
                            let levels = Self.sharpnessLevels, gradientStep = table.gradientStep
                            Parallel.rows(h) { rows in
                                for index in (rows.lowerBound * w)..<(rows.upperBound * w) {
                                    let p = src + index * 3
                                    let (r, gr, b) = (Float(p[0]), Float(p[1]), Float(p[2]))
                                    let y = 0.299 * r + 0.587 * gr + 0.114 * b
                                    let cb = (-0.168736 * r - 0.331264 * gr + 0.5 * b) * chroma
                                    let cr = (0.5 * r - 0.418688 * gr - 0.081312 * b) * chroma
                                    let level = min(levels - 1, Int(g[index] * gradientStep))
                                    let ly = q[level * 1024 + min(1023, Int(y * 4))]
                                    let keep = 1 - e[index], inked = e[index]
                                    let o = dst + index * 3
                                    o[0] = UInt8(max(0, min(255, (ly + 1.402 * cr) * keep + 25 * inked + 0.5)))
                                    o[1] = UInt8(max(0, min(255, (ly - 0.344136 * cb - 0.714136 * cr) * keep + 22 * inked + 0.5)))
                                    o[2] = UInt8(max(0, min(255, (ly + 1.772 * cb) * keep + 28 * inked + 0.5)))
                                }
                            }
                        }
                    }
                }
            }
        }
        let cartoon = PixelBuffer(width: w, height: h, channels: 3, pixels: out)
        return reduced ? cartoon.resized(width: rgb.width, height: rgb.height) : cartoon
    }

    /// Q(Y) for each φq level: 1,024 luma steps of ¼ per level, and the factor that turns a
    /// Sobel magnitude (8 × the luma slope per work pixel of `workPixel` photo pixels) into a
    /// level — the sharpest from a slope of 3 luma units per pixel of the 1024-px image up.
    func quantisationTable(workPixel: Float, scale: Float) -> (values: [Float], gradientStep: Float) {
        let q = Float(bins), width = 255 / q
        let levels = Self.sharpnessLevels
        let soft: Float = 0.25, sharp = 1.0 + 1.0 * intensity
        var values = [Float](repeating: 0, count: levels * 1024)
        for level in 0..<levels {
            let phi = soft + (sharp - soft) * Float(level) / Float(levels - 1)
            for step in 0..<1024 {
                let y = (Float(step) + 0.5) / 4
                let boundary = (y / width).rounded() * width
                values[level * 1024 + step] = boundary + width / 2 * tanh(phi * (y - boundary))
            }
        }
        let slopePerMagnitude = scale / (8 * workPixel)
        return (values, slopePerMagnitude / 3 * Float(levels - 1))
    }
}
