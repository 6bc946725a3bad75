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
}
