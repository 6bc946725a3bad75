import Foundation

/// `pop_art` — a Lichtenstein print: flat, boosted colour from a small palette, Ben-Day dots
/// (an AM halftone screen) and bold black outlines.
///
/// 1. Flat colour: ``DomainTransform`` smoothing (σs = 12·scale px, σr = 40) at a quarter of
///    the size, scaled back up bilinearly (the photo's grain would otherwise break the flat
///    areas into specks of neighbouring palette colours).
/// 2. Saturation × (1.4 + 0.8·i) and contrast × (1.2 + 0.4·i) around mid-gray (Rec. 601 luma);
///    each channel posterised to `levels` = 4 − round(2·i) values (3 by default: at most 27
///    colours).
/// 3. Halftone: a 45°-rotated screen of cells (≈ (6 + 6·i) px × scale); each cell carries a dot
///    whose area grows with the darkness of the pixel's palette colour — amplitude modulation,
///    as a printer's screen — printed at 45 % of that colour: at most twice the palette's
///    colour count in the result.
/// 4. Outlines: ``InkLines`` (difference of Gaussians, σ = (0.7 + 0.5·i)·scale, hard threshold)
///    on the quarter-size flat colour, so only the borders of the large flat areas are inked,
///    four photo pixels wide and more, in near-black.
///
/// Speed: the pixel pass uses tables. Boost and posterisation are computed once for each of the
/// 32³ colours of 5-bit precision (the boost is a·luma + b·channel + k), so a pixel costs one
/// lookup; the screen repeats every P = round(√2·cell) pixels in x and y, so the distance to
/// the nearest dot centre comes from a P×P tile (``HalftoneScreen``), and each palette colour's dot radius is known
/// in advance.
package struct PopArtStyle: Sendable {
    package var intensity: Float

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    package var levels: Int { 4 - Int((2 * intensity).rounded()) }

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let photo = image.convertedToRGB()
        let scale = photo.styleScale
        let (w, h) = (photo.width, photo.height)
        let reduced = min(w, h) >= 32
        let quarter = reduced ? photo.resized(width: w / 4, height: h / 4) : photo
        let flat = DomainTransform(sigmaSpatial: 12 * scale / (reduced ? 4 : 1), sigmaRange: 40).apply(quarter)
        let rgb = reduced ? flat.resized(width: w, height: h) : flat
        let flatScale = scale / (reduced ? 4 : 1)
        let lines = InkLines(sigma: (0.7 + 0.5 * intensity) * flatScale, phi: 100, minimumArea: 40 * flatScale * flatScale)
        let ink = lines.coverage(flat).upsampled(width: w, height: h)
        let saturation = 1.4 + 0.8 * intensity, contrast = 1.2 + 0.4 * intensity
        let levels = self.levels, step = 255 / Float(levels - 1)
        // c' = (gray + (c − gray)·S − 128)·C + 128 = gray·(1 − S)·C + c·S·C + 128·(1 − C), in 1/256ths.
        let fromGray = (0..<256).map { Int32((Float($0) * (1 - saturation) * contrast * 256).rounded()) }
        let fromChannel = (0..<256).map { Int32(((Float($0) * saturation * contrast + 128 * (1 - contrast)) * 256).rounded()) }
        let level = (0..<256).map { UInt8((Float($0) / step).rounded()) }
        // The palette (levels³ colours), plain and inked, and each colour's dot radius².
        let colours = levels * levels * levels
        var plain = [UInt8](repeating: 0, count: colours * 3), inked = plain
        var dotRadius2 = [Float](repeating: 0, count: colours)
        for index in 0..<colours {
            let value = [index / (levels * levels), (index / levels) % levels, index % levels].map { Float($0) * step }
            for k in 0..<3 {
                plain[index * 3 + k] = UInt8(value[k])
                inked[index * 3 + k] = UInt8(value[k] * 0.45)
            }
            let darkness = 1 - (0.299 * value[0] + 0.587 * value[1] + 0.114 * value[2]) / 255
            let radius = 0.5 * darkness.squareRoot() * 0.95
            dotRadius2[index] = radius * radius
        }
        // Squared distance (in cell units) to the nearest dot centre of the 45° grid, one period.
        let cell: Float = max(3, (6 + 6 * intensity) * scale)
        let screen = HalftoneScreen(cell: cell)
        let (period, tile) = (screen.period, screen.distances)
        // Boost + posterise for every 5-bit colour (the centre of its 8×8×8 box): one lookup
        // per pixel instead of luma, three boosts and three roundings.
        var cube = [UInt8](repeating: 0, count: 32 * 32 * 32)
        for index in cube.indices {
            let (r, g, b) = ((index >> 10) * 8 + 4, ((index >> 5) & 31) * 8 + 4, (index & 31) * 8 + 4)
            let base = fromGray[(77 * r + 150 * g + 29 * b + 128) >> 8]
            func post(_ value: Int32) -> Int { Int(level[Int(min(255, max(0, value >> 8)))]) }
            cube[index] = UInt8(post(base + fromChannel[r]) * levels * levels + post(base + fromChannel[g]) * levels
                                + post(base + fromChannel[b]))
        }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let outline: [UInt8] = [18, 16, 24]
        ink.values.withUnsafeBufferPointer { inkBuffer in outline.withUnsafeBufferPointer { outlineBuffer in
        rgb.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                cube.withUnsafeBufferPointer { cubeBuffer in
                plain.withUnsafeBufferPointer { pl in inked.withUnsafeBufferPointer { ik in
                dotRadius2.withUnsafeBufferPointer { dr in tile.withUnsafeBufferPointer { tl in
                    let (cp, pp, ip, rp, tp) = (cubeBuffer.baseAddress!, pl.baseAddress!, ik.baseAddress!, dr.baseAddress!, tl.baseAddress!)
                    let (inkp, black) = (inkBuffer.baseAddress!, outlineBuffer.baseAddress!)
                    Parallel.rows(h) { rows in
                        for y in rows {
                            let row = src + y * w * 3, out = dst + y * w * 3, tileRow = tp + (y % period) * period
                            let inkRow = inkp + y * w
                            var column = 0
                            for x in 0..<w {
                                let p = row + x * 3
                                let index = Int(cp[(Int(p[0] >> 3) << 10) | (Int(p[1] >> 3) << 5) | Int(p[2] >> 3)])
                                let colour = inkRow[x] >= 0.5 ? black : (tileRow[column] < rp[index] ? ip : pp) + index &* 3
                                let o = out + x * 3
                                o[0] = colour[0]; o[1] = colour[1]; o[2] = colour[2]
                                column += 1
                                if column == period { column = 0 }
                            }
                        }
                    }
                } }
                } }
                }
            }
        }
        } }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }
}
