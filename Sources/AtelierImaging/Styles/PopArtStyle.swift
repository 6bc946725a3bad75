import Foundation

/// `pop_art` — a posterised, bold palette printed with Ben-Day halftone dots.
///
/// 1. light edge-preserving smoothing (``DomainTransform``, σs = 8·scale, σr = 30) so posterised
///    regions have clean borders; 2. saturation × (1.4 + 0.8·i) and contrast × (1.2 + 0.4·i)
///    around mid-gray; 3. each channel posterised to `levels` = 4 − round(2·i) values (3 by
///    default: at most 27 colours); 4. halftone: a 45°-rotated grid of cells (6 + 6·i px ×
///    scale); each cell carries a dot whose radius grows with the darkness of its colour, printed
///    at 45 % of the colour — at most twice the palette's colour count in the result.
public struct PopArtStyle: Sendable {
    public var intensity: Float

    public init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    public var levels: Int { 4 - Int((2 * intensity).rounded()) }

    public func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.channels == 4 ? image.droppingAlpha() : (image.channels == 1 ? image.expandedToRGB() : image)
        let scale = max(0.25, Float(max(rgb.width, rgb.height)) / 1024)
        let smooth = DomainTransform(sigmaSpatial: 8 * scale, sigmaRange: 30).apply(rgb)
        let saturation = 1.4 + 0.8 * intensity, contrast = 1.2 + 0.4 * intensity
        let step = 255 / Float(levels - 1)
        let cell = max(3, (6 + 6 * intensity) * scale)
        let (w, h) = (rgb.width, rgb.height)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        smooth.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(h) { rows in
                    for y in rows {
                        for x in 0..<w {
                            let i = (y * w + x) * 3
                            var r = Float(src[i]), g = Float(src[i + 1]), b = Float(src[i + 2])
                            let gray = 0.299 * r + 0.587 * g + 0.114 * b
                            r = (gray + (r - gray) * saturation - 128) * contrast + 128
                            g = (gray + (g - gray) * saturation - 128) * contrast + 128
                            b = (gray + (b - gray) * saturation - 128) * contrast + 128
                            let pr = (max(0, min(255, r)) / step).rounded() * step
                            let pg = (max(0, min(255, g)) / step).rounded() * step
                            let pb = (max(0, min(255, b)) / step).rounded() * step
                            // Distance to the centre of this pixel's cell on the 45° grid.
                            let u = (Float(x) + Float(y)) * 0.70710678 / cell, v = (Float(x) - Float(y)) * 0.70710678 / cell
                            let du = u - u.rounded(.down) - 0.5, dv = v - v.rounded(.down) - 0.5
                            let darkness = 1 - (0.299 * pr + 0.587 * pg + 0.114 * pb) / 255
                            let radius = 0.5 * darkness.squareRoot() * 0.95
                            let ink: Float = (du * du + dv * dv).squareRoot() < radius ? 0.45 : 1
                            dst[i] = UInt8(pr * ink)
                            dst[i + 1] = UInt8(pg * ink)
                            dst[i + 2] = UInt8(pb * ink)
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }
}
