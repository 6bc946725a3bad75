import Foundation

/// `comic` — quantised colour, XDoG ink lines and screentone dots in the shadows.
///
/// 1. colour: ``DomainTransform`` smoothing (σs = 15·scale, σr = 30) computed at a quarter of
///    the size and scaled back up bilinearly (flat colour needs no fine detail; the ink brings
///    it back), then each channel quantised to 5 values;
/// 2. ink: XDoG (Winnemöller et al. 2012) on the luma L ∈ 0…1 at half size (σ halved with it;
///    D read back bilinearly at full size) — D = G_σ(L) − τ·G_{1.6σ}(L),
///    τ = 0.98, σ = (0.7 + 0.8·i)·scale, E = 1 where D ≥ ε = 0, else 1 + tanh(φ·(D − ε)) with
///    φ = 100; a pixel is inked where E < ½, that is where D < atanh(−½)/φ ≈ −0.0055 — so no
///    tanh is evaluated. Flat regions (D = 0.02·L ≥ 0) stay clear whatever their brightness;
///    the dark side of every edge gets a line;
/// 3. screentone: where the smoothed luma is below 0.35 + 0.1·i, a regular dot grid (cells of
///    5·scale px) darkens the shadow to 25 % inside each dot.
package struct ComicStyle: Sendable {
    package var intensity: Float

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.convertedToRGB()
        let (w, h) = (rgb.width, rgb.height)
        let scale = rgb.styleScale
        // Half size feeds the ink, a quarter the colour.
        let half = rgb.resized(width: max(1, w / 2), height: max(1, h / 2))
        let smooth = DomainTransform(sigmaSpatial: 15 * scale / 4, sigmaRange: 30)
            .apply(half.resized(width: max(1, w / 4), height: max(1, h / 4)))
            .resized(width: w, height: h)
        let luma = FloatPlane(luma: half)
        let sigma = (0.7 + 0.8 * intensity) * scale / 2
        let narrow = luma.gaussianBlurred(sigma: sigma)
        // G(1.6σ) = G(σ) ∗ G(σ·√(1.6² − 1)): the wide blur starts from the narrow one.
        let wide = narrow.gaussianBlurred(sigma: sigma * (1.6 * 1.6 - 1).squareRoot())
        let (hw, hh) = (luma.width, luma.height)
        // Bilinear positions of full-size columns in the half-size planes.
        let columns: [(Int, Int, Float)] = (0..<w).map { x in
            let position = max(0, min(Float(hw - 1), (Float(x) + 0.5) / 2 - 0.5))
            let left = Int(position)
            return (left, min(hw - 1, left + 1), position - Float(left))
        }
        let tau: Float = 0.98, inkBelow: Float = atanh(-0.5) / 100 * 255
        let shadowBelow = Int32((0.35 + 0.1 * intensity) * 255 * 256)
        // The dot grid repeats every `cell` px: a tile of "inside a dot".
        let cell = max(3, Int((5 * scale).rounded()))
        let dots: [Bool] = (0..<(cell * cell)).map { i in
            let du = (Float(i % cell) + 0.5) / Float(cell) - 0.5, dv = (Float(i / cell) + 0.5) / Float(cell) - 0.5
            return du * du + dv * dv < 0.09
        }
        let step: Float = 255 / 4
        let quantised = (0..<256).map { UInt8((Float($0) / step).rounded() * step) }
        let toned = quantised.map { UInt8(Float($0) * 0.25) }
        // D = G_σ − τ·G_1.6σ at half size, then the output loop reads it bilinearly.
        let difference = [Float](unsafeUninitializedCapacity: hw * hh) { target, initialized in
            narrow.values.withUnsafeBufferPointer { nb in
                wide.values.withUnsafeBufferPointer { wb in
                    let (np, wp, dst) = (nb.baseAddress!, wb.baseAddress!, target.baseAddress!)
                    Parallel.rows(hh) { rows in
                        for i in (rows.lowerBound * hw)..<(rows.upperBound * hw) { dst[i] = np[i] - tau * wp[i] }
                    }
                }
            }
            initialized = hw * hh
        }
        let out = [UInt8](unsafeUninitializedCapacity: w * h * 3) { target, initialized in
            smooth.pixels.withUnsafeBufferPointer { smoothBuffer in
                difference.withUnsafeBufferPointer { differenceBuffer in columns.withUnsafeBufferPointer { columnBuffer in
                dots.withUnsafeBufferPointer { db in quantised.withUnsafeBufferPointer { qb in toned.withUnsafeBufferPointer { tb in
                    let (sp, dp, cp, dotp, qp, tp, dst) = (smoothBuffer.baseAddress!, differenceBuffer.baseAddress!, columnBuffer.baseAddress!,
                                                          db.baseAddress!, qb.baseAddress!, tb.baseAddress!, target.baseAddress!)
                    Parallel.rows(h) { rows in
                        for y in rows {
                            let position = max(0, min(Float(hh - 1), (Float(y) + 0.5) / 2 - 0.5))
                            let top = Int(position), fy = position - Float(top)
                            let upper = dp + top * hw, lower = dp + min(hh - 1, top + 1) * hw
                            let dotRow = dotp + (y % cell) * cell
                            var column = 0
                            for x in 0..<w {
                                let index = y * w + x, o = dst + index * 3, s = sp + index * 3
                                let (left, right, fx) = cp[x]
                                let a = upper[left] + (upper[right] - upper[left]) * fx
                                let b = lower[left] + (lower[right] - lower[left]) * fx
                                let inked = a + (b - a) * fy < inkBelow
                                let (r, g, bl) = (Int(s[0]), Int(s[1]), Int(s[2]))
                                let shaded = Int32(77 * r + 150 * g + 29 * bl) < shadowBelow && dotRow[column]
                                let table = shaded ? tp : qp
                                o[0] = inked ? 15 : table[r]; o[1] = inked ? 15 : table[g]; o[2] = inked ? 20 : table[bl]
                                column += 1
                                if column == cell { column = 0 }
                            }
                        }
                    }
                } } }
                } }
            }
            initialized = w * h * 3
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }
}
