import Foundation

/// `sketch` — a colour-dodge pencil sketch with shading.
///
/// 1. luma L; 2. B = Gaussian blur of the inverted luma (σ grows with intensity: wider strokes);
/// 3. colour dodge: D = L · 255 / (255 − B), clamped — flat areas go white, edges stay as thin
///    dark lines; 4. shading: multiply with a softened copy of the original luma so dark regions
///    keep tone (weight 0.35 · intensity·2, capped), as a pencil shades shadows.
/// Output is gray (returned as RGB so every style encodes the same way).
/// Parameters: `intensity` 0…1 (0.5 default): stroke width σ = 2 + 10·intensity px at 1024 px
/// long side, scaled with the image; shading weight.
package struct SketchStyle: Sendable {
    package var intensity: Float = 0.5

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let luma = FloatPlane(luma: image)
        let sigma = (2 + 10 * intensity) * image.styleScale
        let inverted = FloatPlane(width: luma.width, height: luma.height, values: luma.values.map { 255 - $0 })
        let blurred = inverted.gaussianBlurred(sigma: sigma)
        let shade = luma.gaussianBlurred(sigma: sigma * 2)
        let shading = min(0.7, 0.7 * intensity)
        var out = [UInt8](repeating: 0, count: luma.values.count * 3)
        luma.values.withUnsafeBufferPointer { l in
            blurred.values.withUnsafeBufferPointer { b in
                shade.values.withUnsafeBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        let (lp, bp, sp, op) = (l.baseAddress!, b.baseAddress!, s.baseAddress!, o.baseAddress!)
                        Parallel.rows(luma.height) { rows in
                            for index in (rows.lowerBound * luma.width)..<(rows.upperBound * luma.width) {
                                let dodge = min(255, lp[index] * 255 / max(1, 255 - bp[index]))
                                let tone = (1 - shading) + shading * (sp[index] / 255)
                                let value = UInt8(max(0, min(255, dodge * tone + 0.5)))
                                op[index * 3] = value
                                op[index * 3 + 1] = value
                                op[index * 3 + 2] = value
                            }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: luma.width, height: luma.height, channels: 3, pixels: out)
    }
}
