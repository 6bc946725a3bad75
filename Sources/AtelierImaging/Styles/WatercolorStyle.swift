import Foundation

/// `watercolor` — after Bousseau, Kaplan, Thollot & Sillion 2006, "Interactive watercolor
/// rendering with temporal coherence and abstraction": an abstracted image, its edges wobbled,
/// then painted by modulating the pigment density of each colour.
///
/// 1. Abstraction, at half size: ``DomainTransform`` (σs = (20 + 50·i)·scale px, σr = 25 + 25·i)
///    flattens texture; ``washes(_:layers:)`` softly quantises the luma into 7 − round(3·i)
///    glazes; ``Kuwahara`` (radius (3 + 4·i)·scale px) breaks the result into the blotchy,
///    flat-bottomed shapes a brush leaves (the paper abstracts with morphology; both remove
///    detail below the brush size and keep region borders).
/// 2. Edge darkening: pigment migrates to the rim of a wet wash. The gradient magnitude of the
///    abstracted colour (the largest of the R, G, B Sobel magnitudes after a σ = 1 blur, so the
///    rim has width), e = min(1, |∇C| / 8) with |∇C| in levels per pixel of the 1024-px image,
///    raises the density at every region border, whether lightness or only hue changes there.
/// 3. Wobbling: the abstracted colour and rims are read at positions displaced by a smooth
///    noise field (amplitude (1.5 + 3·i)·scale px, 60-px features at 1024 px), so borders
///    waver as a hand-painted edge does.
/// 4. Pigment density d = 1 + κe·e + κt·(turbulence − ½) + κp·(paper − ½) + κg·(granulation − ½):
///    turbulence is two octaves of value noise (90 and 30 px at 1024 px; the uneven
///    concentration of pigment in the water), paper is fine noise (4 and 16 px at 1024 px) and
///    granulation finer still (2 photo px: the grain pigment settles into). κe = 0.9 + 0.9·i,
///    κt = 0.7 + 0.6·i, κp = 0.35, κg = 0.2. Each channel C (0…1) becomes
///    C′ = C·(1 − (1 − C)·(d − 1)) — the paper's density model: d > 1 darkens and saturates,
///    d < 1 thins the pigment toward the paper; white stays white. The wash is transparent: C
///    is first lifted toward the paper by 15 %.
/// All noise is hashed lattice noise (``StyleNoise``): the same photo gives the same painting.
package struct WatercolorStyle: Sendable {
    package var intensity: Float

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.convertedToRGB()
        let (w, h) = (rgb.width, rgb.height)
        let scale = rgb.styleScale, i = intensity
        // 1. Abstraction at half size.
        let factor = min(w, h) >= 32 ? 2 : 1
        let (sw, sh) = (max(1, w / factor), max(1, h / factor))
        let small = rgb.resized(width: sw, height: sh)
        let smooth = DomainTransform(sigmaSpatial: (20 + 50 * i) * scale / Float(factor), sigmaRange: 25 + 25 * i).apply(small)
        let radius = max(1, Int(((3 + 4 * i) * scale / Float(factor)).rounded()))
        let abstracted = Kuwahara.filter(Self.washes(smooth, layers: 7 - Int((3 * i).rounded())), radius: radius)
        // 2. Rims: |∇L| per photo pixel, 0…1.
        let rim = Self.colourGradient(abstracted)
        let rimScale = scale / (8 * Float(factor) * 8)   // Sobel = 8 × slope per work pixel
        // Colour and rim interleaved: one bilinear read serves all four.
        var texels = [Float](repeating: 0, count: sw * sh * 4)
        for p in 0..<(sw * sh) {
            texels[p * 4] = Float(abstracted.pixels[p * 3]) / 255
            texels[p * 4 + 1] = Float(abstracted.pixels[p * 3 + 1]) / 255
            texels[p * 4 + 2] = Float(abstracted.pixels[p * 3 + 2]) / 255
            texels[p * 4 + 3] = min(1, rim.values[p] * rimScale)
        }
        // 3–4. The smooth fields (wobble x, wobble y, turbulence) at a quarter size.
        let fields = Self.fields(width: w, height: h, scale: scale, wobble: (1.5 + 3 * i) * scale)
        let (wobbleX, wobbleY, turbulence) = (fields.0.upsampled(width: w, height: h), fields.1.upsampled(width: w, height: h),
                                              fields.2.upsampled(width: w, height: h))
        let (kEdge, kTurbulence, kPaper, kGrain): (Float, Float, Float, Float) = (0.9 + 0.9 * i, 0.7 + 0.6 * i, 0.35, 0.2)
        let paper = Self.paperTile, grain = Self.grainTile, size = Self.tileSize, step = 1 / scale
        let toSmall = 1 / Float(factor)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        texels.withUnsafeBufferPointer { texelBuffer in
            wobbleX.values.withUnsafeBufferPointer { wxb in wobbleY.values.withUnsafeBufferPointer { wyb in
            turbulence.values.withUnsafeBufferPointer { tb in
            paper.withUnsafeBufferPointer { pb in grain.withUnsafeBufferPointer { gb in
            out.withUnsafeMutableBufferPointer { target in
                let (tex, wx, wy, turb, pp, gp, dst) = (texelBuffer.baseAddress!, wxb.baseAddress!, wyb.baseAddress!, tb.baseAddress!,
                                                        pb.baseAddress!, gb.baseAddress!, target.baseAddress!)
                Parallel.rows(h) { rows in
                    for y in rows {
                        let paperRow = pp + (Int(Float(y) * step) & (size - 1)) * size
                        let grainRow = gp + (y & (size - 1)) * size
                        for x in 0..<w {
                            let index = y * w + x
                            // Bilinear read of the half-size colour and rim at the wobbled position.
                            let sx = max(0, min(Float(sw - 1), (Float(x) + wx[index] + 0.5) * toSmall - 0.5))
                            let sy = max(0, min(Float(sh - 1), (Float(y) + wy[index] + 0.5) * toSmall - 0.5))
                            let (x0, y0) = (Int(sx), Int(sy))
                            let (fx, fy) = (sx - Float(x0), sy - Float(y0))
                            let (x1, y1) = (min(sw - 1, x0 + 1), min(sh - 1, y0 + 1))
                            let a = UnsafeRawPointer(tex + (y0 * sw + x0) * 4).load(as: SIMD4<Float>.self)
                            let b = UnsafeRawPointer(tex + (y0 * sw + x1) * 4).load(as: SIMD4<Float>.self)
                            let c = UnsafeRawPointer(tex + (y1 * sw + x0) * 4).load(as: SIMD4<Float>.self)
                            let d = UnsafeRawPointer(tex + (y1 * sw + x1) * 4).load(as: SIMD4<Float>.self)
                            let top = a + (b - a) * fx, bottom = c + (d - c) * fx
                            let texel = top + (bottom - top) * fy
                            let density = 1 + kEdge * texel[3] + kTurbulence * (turb[index] - 0.5)
                                + kPaper * (paperRow[Int(Float(x) * step) & (size - 1)] - 0.5) + kGrain * (grainRow[x & (size - 1)] - 0.5)
                            let colour = 1 - 0.85 * (SIMD4<Float>(1, 1, 1, 1) - texel)
                            let painted = colour * (1 - (1 - colour) * (density - 1))
                            let o = dst + index * 3
                            o[0] = UInt8(max(0, min(255, painted[0] * 255 + 0.5)))
                            o[1] = UInt8(max(0, min(255, painted[1] * 255 + 0.5)))
                            o[2] = UInt8(max(0, min(255, painted[2] * 255 + 0.5)))
                        }
                    }
                }
            }
            } }
            }
            } }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }

    /// The largest of the R, G and B Sobel magnitudes, each after a σ = 1 blur (so the rim has
    /// width): a border between two washes of equal lightness but different hue is a border too.
    static func colourGradient(_ image: PixelBuffer) -> FloatPlane {
        let (w, h) = (image.width, image.height)
        let channels = (0..<3).map { k in
            FloatPlane(width: w, height: h, values: (0..<(w * h)).map { Float(image.pixels[$0 * 3 + k]) })
                .gaussianBlurred(sigma: 1).sobelMagnitude()
        }
        var out = channels[0].values
        for k in 1..<3 {
            for i in out.indices { out[i] = max(out[i], channels[k].values[i]) }
        }
        return FloatPlane(width: w, height: h, values: out)
    }

    /// Washes: the luma softly quantised to `layers` bands (Q = b + (Δ/2)·tanh(0.3·(Y − b)), b
    /// the nearest band boundary, as ``CartoonStyle`` does), chroma kept — the glazes a painter
    /// lays one over another, whose borders the rims then darken.
    static func washes(_ image: PixelBuffer, layers: Int) -> PixelBuffer {
        let width = 255 / Float(max(2, layers))
        let table: [Float] = (0..<256).map { v in
            let y = Float(v), boundary = (y / width).rounded() * width
            return boundary + width / 2 * tanh(0.3 * (y - boundary))
        }
        var out = image.pixels
        out.withUnsafeMutableBufferPointer { buffer in
            table.withUnsafeBufferPointer { tableBuffer in
                let (p, q) = (buffer.baseAddress!, tableBuffer.baseAddress!)
                Parallel.rows(image.height) { rows in
                    for index in (rows.lowerBound * image.width)..<(rows.upperBound * image.width) {
                        let o = p + index * 3
                        let (r, g, b) = (Float(o[0]), Float(o[1]), Float(o[2]))
                        let y = 0.299 * r + 0.587 * g + 0.114 * b
                        let shift = q[Int(y)] - y
                        o[0] = UInt8(max(0, min(255, r + shift + 0.5)))
                        o[1] = UInt8(max(0, min(255, g + shift + 0.5)))
                        o[2] = UInt8(max(0, min(255, b + shift + 0.5)))
                    }
                }
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: 3, pixels: out)
    }

    /// Wobble offsets (photo px, x and y) and turbulence (0…1) at a quarter of the size, from
    /// noise in 1024-px units so the look does not change with the photo's size.
    static func fields(width: Int, height: Int, scale: Float, wobble: Float) -> (FloatPlane, FloatPlane, FloatPlane) {
        let (qw, qh) = (max(1, width / 4), max(1, height / 4))
        let (fx, fy) = (Float(width) / Float(qw), Float(height) / Float(qh))
        var planes = [[Float]](repeating: [Float](repeating: 0, count: qw * qh), count: 3)
        for y in 0..<qh {
            let v = (Float(y) + 0.5) * fy / scale
            for x in 0..<qw {
                let u = (Float(x) + 0.5) * fx / scale, p = y * qw + x
                planes[0][p] = (StyleNoise.value(u / 60, v / 60, seed: 4) - 0.5) * 2 * wobble
                planes[1][p] = (StyleNoise.value(u / 60, v / 60, seed: 5) - 0.5) * 2 * wobble
                planes[2][p] = 0.65 * StyleNoise.value(u / 90, v / 90, seed: 2) + 0.35 * StyleNoise.value(u / 30, v / 30, seed: 3)
            }
        }
        return (FloatPlane(width: qw, height: qh, values: planes[0]), FloatPlane(width: qw, height: qh, values: planes[1]),
                FloatPlane(width: qw, height: qh, values: planes[2]))
    }

    static let tileSize = 256
    /// The paper (in 1024-px units): value noise with 4-unit features, repeating every 256.
    static let paperTile: [Float] = StyleNoise.tile(size: tileSize) { x, y in
        0.6 * StyleNoise.value(x / 4, y / 4, periodX: 64, periodY: 64, seed: 6)
            + 0.4 * StyleNoise.value(x / 16, y / 16, periodX: 16, periodY: 16, seed: 7)
    }
    /// Pigment granulation (in photo pixels): 2-px features, repeating every 256.
    static let grainTile: [Float] = StyleNoise.tile(size: tileSize) { x, y in
        StyleNoise.value(x / 2, y / 2, periodX: 128, periodY: 128, seed: 8)
    }
}
