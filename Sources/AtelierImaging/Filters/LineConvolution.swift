import Foundation

extension FloatPlane {
    /// Each value replaced by the sum along a straight segment through it: the taps
    /// (round(k·cos θ), round(k·sin θ)) for k = −radius…radius, each repeated `thickness`
    /// pixels to either side across the segment (duplicates counted once); beyond the border
    /// counts as 0. The line kernels of Lu, Xu & Jia's stroke map.
    ///
    /// Speed: a tap is a whole-row shift, so the sum is one vectorised add of a padded row per
    /// tap — (2·radius + 1)·(2·thickness + 1) passes over contiguous floats, rows on every core.
    package func lineSums(angle: Float, radius: Int, thickness: Int = 0) -> FloatPlane {
        let (w, h) = (width, height)
        let (c, s) = (cos(angle), sin(angle))
        var seen = Set<Int>(), offsets: [(Int, Int)] = []
        for k in -radius...radius {
            for t in -thickness...thickness {
                let dx = Int((Float(k) * c - Float(t) * s).rounded()), dy = Int((Float(k) * s + Float(t) * c).rounded())
                if seen.insert((dy + 4096) * 8192 + dx + 4096).inserted { offsets.append((dx, dy)) }
            }
        }
        let pad = offsets.reduce(0) { max($0, abs($1.0), abs($1.1)) }
        let pw = w + 2 * pad
        // The plane inside a border of zeros `pad` wide.
        var padded = [Float](repeating: 0, count: pw * (h + 2 * pad))
        values.withUnsafeBufferPointer { source in
            padded.withUnsafeMutableBufferPointer { target in
                for y in 0..<h { (target.baseAddress! + (y + pad) * pw + pad).update(from: source.baseAddress! + y * w, count: w) }
            }
        }
        var out = [Float](repeating: 0, count: w * h)
        padded.withUnsafeBufferPointer { source in
            offsets.withUnsafeBufferPointer { offsetBuffer in
                out.withUnsafeMutableBufferPointer { target in
                    let (src, taps, dst) = (source.baseAddress!, offsetBuffer, target.baseAddress!)
                    Parallel.rows(h) { rows in
                        for y in rows {
                            let row = dst + y * w
                            for (dx, dy) in taps {
                                let line = src + (y + pad + dy) * pw + pad + dx
                                for x in 0..<w { row[x] += line[x] }
                            }
                        }
                    }
                }
            }
        }
        return FloatPlane(width: w, height: h, values: out)
    }
}
