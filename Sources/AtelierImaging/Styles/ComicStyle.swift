import Foundation

/// `comic` — a printed comic panel: flat quantised colour, XDoG ink lines and an AM
/// screentone in the shadows.
///
/// 1. Colour: ``DomainTransform`` smoothing (σs = 15·scale, σr = 30) computed at a quarter of
///    the size, scaled up bilinearly to half and read there (flat colour needs no fine detail;
///    the ink, read bilinearly, brings the edges back), then quantised in YCbCr: luma to 6 − round(2·i) levels, chroma in steps of 24,
///    through a table of the 32³ colours of 5-bit precision.
/// 2. Ink: ``InkLines`` — XDoG (Winnemöller et al. 2012) on the half-size luma, D = G_σ −
///    0.98·G_{1.6σ}, σ = (0.7 + 0.8·i)·scale (halved with the size), soft step φ = 100 per unit of luma, inked where the
///    coverage passes ½ (D < atanh(−½)/φ ≈ −0.0055), isolated specks removed. Flat regions
///    (D = 0.02·L ≥ 0) stay clear whatever their brightness; the dark side of every edge gets
///    a line.
/// 3. Screentone: where the smoothed luma is below t = 0.4 + 0.1·i, an AM screen of dots at 45°
///    (cells of 5·scale px) whose area grows with the depth of the shadow, (t − L)/t × 0.8 of
///    the cell at most; a dot darkens its colour to 25 %.
package struct ComicStyle: Sendable {
    package var intensity: Float

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    /// Luma levels of the flat colour at this intensity.
    package var levels: Int { 6 - Int((2 * intensity).rounded()) }

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.convertedToRGB()
        let (w, h) = (rgb.width, rgb.height)
        let scale = rgb.styleScale
        let levels = self.levels
        // Half size feeds the ink, a quarter the colour.
        let half = rgb.resized(width: max(1, w / 2), height: max(1, h / 2))
        let (hw, hh) = (half.width, half.height)
        let smooth = DomainTransform(sigmaSpatial: 15 * scale / 4, sigmaRange: 30)
            .apply(half.resized(width: max(1, w / 4), height: max(1, h / 4)))
            .resized(width: hw, height: hh)
        let halfScale = scale * Float(half.width) / Float(w)
        let inkLines = InkLines(sigma: (0.7 + 0.8 * intensity) * halfScale, phi: 100, minimumArea: 40 * halfScale * halfScale)
        let ink = inkLines.coverage(half)
        let (iw, ih) = (ink.width, ink.height)
        // Bilinear positions of full-size columns and rows in the ink plane.
        let columns = FloatPlane.bilinearTaps(from: iw, to: w), lines = FloatPlane.bilinearTaps(from: ih, to: h)
        let shadowBelow = (0.4 + 0.1 * intensity) * 255
        // The screen: a dot's area fraction at each position of one period of the 45° grid.
        let cell = max(3, 5 * scale)
        let screen = HalftoneScreen(cell: cell)
        let period = screen.period, spot = screen.distances.map { Float.pi * $0 }
        // Coverage by luma (0…255 in quarters): the shadow's depth, up to 0.8 of the cell.
        let coverage: [Float] = (0..<1024).map { step in
            let l = Float(step) / 4
            return l < shadowBelow ? 0.8 * (shadowBelow - l) / shadowBelow : 0
        }
        let plain = Self.palette(levels: levels, darkening: 1), toned = Self.palette(levels: levels, darkening: 0.25)
        // Every byte is written below.
        var out = [UInt8](unsafeUninitializedCapacity: w * h * 3) { _, count in count = w * h * 3 }
        smooth.pixels.withUnsafeBufferPointer { smoothBuffer in
            ink.values.withUnsafeBufferPointer { inkBuffer in columns.withUnsafeBufferPointer { columnBuffer in
                spot.withUnsafeBufferPointer { sb in coverage.withUnsafeBufferPointer { cb in
                plain.withUnsafeBufferPointer { qb in toned.withUnsafeBufferPointer { tb in
                out.withUnsafeMutableBufferPointer { target in
                    let (sp, ip, cp, spotp, covp, qp, tp, dst) = (smoothBuffer.baseAddress!, inkBuffer.baseAddress!, columnBuffer.baseAddress!,
                                                                  sb.baseAddress!, cb.baseAddress!, qb.baseAddress!, tb.baseAddress!,
                                                                  target.baseAddress!)
                    Parallel.rows(h) { rows in
                        for y in rows {
                            let spotRow = spotp + (y % period) * period
                            let smoothRow = sp + min(hh - 1, y / 2) * hw * 3
                            let (top, bottom, fy) = lines[y]
                            let upper = ip + top * iw, lower = ip + bottom * iw
                            var column = 0
                            for x in 0..<w {
                                let o = dst + (y * w + x) * 3, s = smoothRow + min(hw - 1, x / 2) * 3
                                let (r, g, bl) = (Int(s[0]), Int(s[1]), Int(s[2]))
                                let (left, right, fx) = cp[x]
                                let a = upper[left] + (upper[right] - upper[left]) * fx
                                let b = lower[left] + (lower[right] - lower[left]) * fx
                                if a + (b - a) * fy >= 0.5 {
                                    o[0] = 15; o[1] = 15; o[2] = 20
                                } else {
                                    let luma = (77 * r + 150 * g + 29 * bl) >> 6   // 0…1020: quarters of luma
                                    let colour = (spotRow[column] < covp[luma] ? tp : qp) + ((r >> 3) << 10 | (g >> 3) << 5 | bl >> 3) * 3
                                    o[0] = colour[0]; o[1] = colour[1]; o[2] = colour[2]
                                }
                                column += 1
                                if column == period { column = 0 }
                            }
                        }
                    }
                }
                } }
                } }
            } }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }

    /// The flat colour of each 5-bit RGB colour (32³ entries, RGB bytes), × `darkening`: luma
    /// (BT.601) to `levels` values, each chroma channel to steps of 24 — flat bands that keep
    /// the photo's hue (quantising R, G and B apart turns skin green and a night sky purple).
    static func palette(levels: Int, darkening: Float) -> [UInt8] {
        let step = 255 / Float(levels - 1), chromaStep: Float = 24
        return [UInt8](unsafeUninitializedCapacity: 32 * 32 * 32 * 3) { out, initialized in
            @inline(__always) func byte(_ value: Float) -> UInt8 { UInt8(max(0, min(255, value * darkening + 0.5))) }
            for index in 0..<(32 * 32 * 32) {
                let (r, g, b) = (Float((index >> 10) * 8 + 4), Float(((index >> 5) & 31) * 8 + 4), Float((index & 31) * 8 + 4))
                let y = ((0.299 * r + 0.587 * g + 0.114 * b) / step).rounded() * step
                let cb = ((-0.168736 * r - 0.331264 * g + 0.5 * b) / chromaStep).rounded() * chromaStep
                let cr = ((0.5 * r - 0.418688 * g - 0.081312 * b) / chromaStep).rounded() * chromaStep
                out[index * 3] = byte(y + 1.402 * cr)
                out[index * 3 + 1] = byte(y - 0.344136 * cb - 0.714136 * cr)
                out[index * 3 + 2] = byte(y + 1.772 * cb)
            }
            initialized = 32 * 32 * 32 * 3
        }
    }
}
