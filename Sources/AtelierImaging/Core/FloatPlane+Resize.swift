extension FloatPlane {
    /// Bilinearly resampled to `newWidth` × `newHeight` (pixel centres aligned, edges
    /// clamped) — how the styles bring a plane they computed at a fraction of the size back to
    /// the photo's. Column positions come from one table; rows run on every core.
    package func upsampled(width newWidth: Int, height newHeight: Int) -> FloatPlane {
        if newWidth == width && newHeight == height { return self }
        let columns = Self.bilinearTaps(from: width, to: newWidth), lines = Self.bilinearTaps(from: height, to: newHeight)
        var out = [Float](repeating: 0, count: newWidth * newHeight)
        values.withUnsafeBufferPointer { source in
            columns.withUnsafeBufferPointer { columnBuffer in
                out.withUnsafeMutableBufferPointer { target in
                    let (src, table, dst) = (source.baseAddress!, columnBuffer.baseAddress!, target.baseAddress!)
                    Parallel.rows(newHeight) { rows in
                        for y in rows {
                            let (top, bottom, fy) = lines[y]
                            let upper = src + top * width, lower = src + bottom * width
                            let row = dst + y * newWidth
                            for x in 0..<newWidth {
                                let (left, right, fx) = table[x]
                                let a = upper[left] + (upper[right] - upper[left]) * fx
                                let b = lower[left] + (lower[right] - lower[left]) * fx
                                row[x] = a + (b - a) * fy
                            }
                        }
                    }
                }
            }
        }
        return FloatPlane(width: newWidth, height: newHeight, values: out)
    }

    /// For each of `target` positions, the two `source` positions around its centre and the
    /// weight of the second (centres aligned, edges clamped): one axis of a bilinear resample.
    package static func bilinearTaps(from source: Int, to target: Int) -> [(Int, Int, Float)] {
        let step = Float(source) / Float(target)
        return (0..<target).map { i in
            let position = max(0, min(Float(source - 1), (Float(i) + 0.5) * step - 0.5))
            let first = Int(position)
            return (first, min(source - 1, first + 1), position - Float(first))
        }
    }
}
