import Foundation

/// Edge-preserving smoothing by the Kuwahara filter (Kuwahara et al. 1976).
package enum Kuwahara {
    /// The classic four-quadrant Kuwahara filter on RGB. Each pixel's four (r+1)×(r+1) quadrant
    /// windows share sums: a row pass stores every pixel's horizontal window sums of R, G, B, L
    /// and L² (exact integers; L = Rec. 601 luma 0…255), then each band of columns slides two
    /// running vertical sums down the image — the windows ending at the pixel's row and those
    /// starting at it — so any radius costs the same. Pixels beyond the border repeat the edge.
    package static func filter(_ rgb: PixelBuffer, radius r: Int) -> PixelBuffer {
        let (w, h) = (rgb.width, rgb.height)
        let span = w + r          // window starts x0 ∈ −r … w−1, stored at x0 + r
        let n = Int64((r + 1) * (r + 1)), inverse = 1 / Float(n)
        // Horizontal sums: 5 interleaved Int32 per window start per row.
        var horizontal = [Int32](repeating: 0, count: span * h * 5)
        rgb.pixels.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(h) { rows in
                    var luma = [Int32](repeating: 0, count: w)
                    luma.withUnsafeMutableBufferPointer { lumaBuffer in
                        let l = lumaBuffer.baseAddress!
                        for y in rows {
                            let row = src + y * w * 3, out = dst + y * span * 5
                            for x in 0..<w {
                                let p = row + x * 3
                                l[x] = (77 * Int32(p[0]) + 150 * Int32(p[1]) + 29 * Int32(p[2]) + 128) >> 8
                            }
                            @inline(__always) func pixel(_ x: Int) -> (Int32, Int32, Int32, Int32) {
                                let c = min(w - 1, max(0, x)), p = row + c * 3
                                return (Int32(p[0]), Int32(p[1]), Int32(p[2]), l[c])
                            }
                            var (sr, sg, sb, sl, sq): (Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0)
                            for x in -r...0 {
                                let (pr, pg, pb, pl) = pixel(x)
                                sr += pr; sg += pg; sb += pb; sl += pl; sq += pl * pl
                            }
                            for x0 in -r..<w {
                                let o = out + (x0 + r) * 5
                                o[0] = sr; o[1] = sg; o[2] = sb; o[3] = sl; o[4] = sq
                                let (ar, ag, ab, al) = pixel(x0 + r + 1), (dr, dg, db, dl) = pixel(x0)
                                sr = sr &+ (ar &- dr); sg = sg &+ (ag &- dg); sb = sb &+ (ab &- db); sl = sl &+ (al &- dl); sq = sq &+ (al &* al &- dl &* dl)
                            }
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        horizontal.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                let (hs, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(w, minimumPerBand: 64) { columns in
                    // Window starts x0 from columns.lowerBound − r to columns.upperBound − 1.
                    let first = columns.lowerBound, count = columns.count + r
                    // above: rows y−r…y (windows ending at y); below: rows y…y+r (starting at y).
                    var sums = [Int32](repeating: 0, count: count * 5 * 2)
                    sums.withUnsafeMutableBufferPointer { sumBuffer in
                        let above = sumBuffer.baseAddress!, below = above + count * 5
                        @inline(__always) func line(_ y: Int) -> UnsafePointer<Int32> {
                            hs + (min(h - 1, max(0, y)) * span + first) * 5
                        }
                        for j in 0...r {
                            let a = line(j - r), b = line(j)
                            for i in 0..<(count * 5) { above[i] = above[i] &+ a[i]; below[i] = below[i] &+ b[i] }
                        }
                        for y in 0..<h {
                            for x in columns {
                                // Quadrants: starts x−r and x, in the windows above and below.
                                let left = (x - first) * 5, right = (x + r - first) * 5
                                @inline(__always) func spread(_ q: UnsafeMutablePointer<Int32>) -> Int64 {
                                    let sl = Int64(q[3])
                                    return n * Int64(q[4]) - sl * sl
                                }
                                var pick = above + left, best = spread(pick)
                                let candidates = (above + right, below + left, below + right)
                                var v = spread(candidates.0)
                                if v < best { best = v; pick = candidates.0 }
                                v = spread(candidates.1)
                                if v < best { best = v; pick = candidates.1 }
                                v = spread(candidates.2)
                                if v < best { pick = candidates.2 }
                                let o = dst + (y * w + x) * 3
                                o[0] = UInt8(min(255, Float(pick[0]) * inverse + 0.5))
                                o[1] = UInt8(min(255, Float(pick[1]) * inverse + 0.5))
                                o[2] = UInt8(min(255, Float(pick[2]) * inverse + 0.5))
                            }
                            let addAbove = line(y + 1), dropAbove = line(y - r), addBelow = line(y + r + 1), dropBelow = line(y)
                            for i in 0..<(count * 5) {
                                // Exact in Int32 (sums stay far below 2³¹); wrapping ops vectorise.
                                above[i] = above[i] &+ (addAbove[i] &- dropAbove[i])
                                below[i] = below[i] &+ (addBelow[i] &- dropBelow[i])
                            }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }
}
