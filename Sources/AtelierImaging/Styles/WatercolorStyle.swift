import Foundation

/// `watercolor` — washes of colour with darkened edges on textured paper.
///
/// 1. Kuwahara filter (radius (3 + 5·i)·scale px): each pixel takes the mean colour of the one
///    of its four overlapping quadrant windows with the least luma variance — flat washes, kept
///    boundaries. Window sums come from integral images, so any radius costs the same.
/// 2. Edge darkening (pigment pools at the rim of a wash): colour × (1 − 0.3·min(1, |∇L| / 80)).
/// 3. Wash and paper: colours lifted towards white by 12 %, then multiplied by a fixed paper
///    grain (two octaves of hashed value noise, 0.9…1.0) — deterministic, so the same photo
///    gives the same painting.
public struct WatercolorStyle: Sendable {
    public var intensity: Float

    public init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    public func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.channels == 4 ? image.droppingAlpha() : (image.channels == 1 ? image.expandedToRGB() : image)
        let scale = max(0.25, Float(max(rgb.width, rgb.height)) / 1024)
        let radius = max(2, Int(((3 + 5 * intensity) * scale).rounded()))
        let painted = Self.kuwahara(rgb, radius: radius)
        let gradient = FloatPlane(luma: painted).sobelMagnitude()
        let (w, h) = (rgb.width, rgb.height)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let index = y * w + x
                let rim = 1 - 0.3 * min(1, gradient.values[index] / 80)
                let paper = 0.9 + 0.1 * Self.paperGrain(x: Float(x) / scale, y: Float(y) / scale)
                for k in 0..<3 {
                    let washed = 0.88 * Float(painted.pixels[index * 3 + k]) + 0.12 * 255
                    out[index * 3 + k] = UInt8(max(0, min(255, washed * rim * paper)))
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }

    /// The classic four-quadrant Kuwahara filter on RGB with integral images.
    static func kuwahara(_ rgb: PixelBuffer, radius r: Int) -> PixelBuffer {
        let (w, h) = (rgb.width, rgb.height)
        let stride = w + 1
        // Integral images of R, G, B, L and L² (Double: sums of squares of 4M pixels overflow Float precision).
        var sums = [[Double]](repeating: [Double](repeating: 0, count: (w + 1) * (h + 1)), count: 5)
        for y in 0..<h {
            var row = [Double](repeating: 0, count: 5)
            for x in 0..<w {
                let i = (y * w + x) * 3
                let red = Double(rgb.pixels[i]), green = Double(rgb.pixels[i + 1]), blue = Double(rgb.pixels[i + 2])
                let l = 0.299 * red + 0.587 * green + 0.114 * blue
                row[0] += red; row[1] += green; row[2] += blue; row[3] += l; row[4] += l * l
                let at = (y + 1) * stride + x + 1
                for k in 0..<5 { sums[k][at] = sums[k][at - stride] + row[k] }
            }
        }
        func boxSum(_ k: Int, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Double {
            // Inclusive pixel box [x0, x1] × [y0, y1].
            sums[k][(y1 + 1) * stride + x1 + 1] - sums[k][y0 * stride + x1 + 1] - sums[k][(y1 + 1) * stride + x0] + sums[k][y0 * stride + x0]
        }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        out.withUnsafeMutableBufferPointer { target in
            let dst = UncheckedSendable(target.baseAddress!)
            Parallel.rows(h) { rows in
                for y in rows {
                    for x in 0..<w {
                        var best = Double.infinity
                        var colour = (0.0, 0.0, 0.0)
                        for (qx, qy) in [(x - r, y - r), (x, y - r), (x - r, y), (x, y)] {
                            let x0 = max(0, qx), y0 = max(0, qy), x1 = min(w - 1, qx + r), y1 = min(h - 1, qy + r)
                            let n = Double((x1 - x0 + 1) * (y1 - y0 + 1))
                            let mean = boxSum(3, x0, y0, x1, y1) / n
                            let variance = boxSum(4, x0, y0, x1, y1) / n - mean * mean
                            if variance < best {
                                best = variance
                                colour = (boxSum(0, x0, y0, x1, y1) / n, boxSum(1, x0, y0, x1, y1) / n, boxSum(2, x0, y0, x1, y1) / n)
                            }
                        }
                        let i = (y * w + x) * 3
                        dst.value[i] = UInt8(min(255, colour.0 + 0.5))
                        dst.value[i + 1] = UInt8(min(255, colour.1 + 0.5))
                        dst.value[i + 2] = UInt8(min(255, colour.2 + 0.5))
                    }
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }

    /// Value noise in 0…1 from a hash of the lattice corners, two octaves (periods 24 and 7 px).
    static func paperGrain(x: Float, y: Float) -> Float {
        func hash(_ i: Int, _ j: Int) -> Float {
            var h = UInt32(truncatingIfNeeded: i &* 374_761_393 &+ j &* 668_265_263)
            h = (h ^ (h >> 13)) &* 1_274_126_177
            return Float(h ^ (h >> 16)) / Float(UInt32.max)
        }
        func noise(_ x: Float, _ y: Float) -> Float {
            let (xi, yi) = (Int(x.rounded(.down)), Int(y.rounded(.down)))
            let (fx, fy) = (x - Float(xi), y - Float(yi))
            let (sx, sy) = (fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy))
            let top = hash(xi, yi) + (hash(xi + 1, yi) - hash(xi, yi)) * sx
            let bottom = hash(xi, yi + 1) + (hash(xi + 1, yi + 1) - hash(xi, yi + 1)) * sx
            return top + (bottom - top) * sy
        }
        return 0.6 * noise(x / 24, y / 24) + 0.4 * noise(x / 7, y / 7)
    }
}
