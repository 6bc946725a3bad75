extension FloatPlane {
    /// Sobel gradient magnitude (|Gx| + |Gy| would be cheaper; this is the true L2 norm).
    /// Border pixels are 0.
    package func sobelMagnitude() -> FloatPlane {
        let (w, h) = (width, height)
        var out = [Float](repeating: 0, count: w * h)
        guard w >= 3, h >= 3 else { return FloatPlane(width: w, height: h, values: out) }
        values.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                let (p, o) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(h - 2) { rows in
                    for row in rows {
                        let y = row + 1
                        for x in 1..<(w - 1) {
                            let i = y * w + x
                            let gx = (p[i - w + 1] + 2 * p[i + 1] + p[i + w + 1]) - (p[i - w - 1] + 2 * p[i - 1] + p[i + w - 1])
                            let gy = (p[i + w - 1] + 2 * p[i + w] + p[i + w + 1]) - (p[i - w - 1] + 2 * p[i - w] + p[i - w + 1])
                            o[i] = (gx * gx + gy * gy).squareRoot()
                        }
                    }
                }
            }
        }
        return FloatPlane(width: w, height: h, values: out)
    }

    /// Each value replaced by the maximum of its 3×3 neighbourhood (thickens lines by a pixel).
    package func dilated() -> FloatPlane {
        let (w, h) = (width, height)
        var out = values
        for y in 0..<h {
            for x in 0..<w {
                var m: Float = values[y * w + x]
                for dy in -1...1 {
                    let yy = y + dy
                    guard yy >= 0, yy < h else { continue }
                    for dx in -1...1 {
                        let xx = x + dx
                        guard xx >= 0, xx < w else { continue }
                        m = max(m, values[yy * w + xx])
                    }
                }
                out[y * w + x] = m
            }
        }
        return FloatPlane(width: w, height: h, values: out)
    }
}
