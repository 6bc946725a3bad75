import Foundation

/// Edge-preserving smoothing by the domain transform, recursive-filter variant (Gastal &
/// Oliveira, SIGGRAPH 2011). Each pass runs a first-order recursive filter along rows, then
/// along columns, whose feedback weight drops across colour edges; three iterations with
/// shrinking σ remove the streaks one pass would leave. Cost is O(pixels) whatever the σ.
/// - `sigmaSpatial`: how far smoothing reaches, in pixels (e.g. 60).
/// - `sigmaRange`: how large a colour step (0…255 scale) still counts as "the same region" (e.g. 40).
///
/// Speed: the step between neighbours is the sum of absolute channel differences of 8-bit
/// input, an integer 0…765, so each iteration's feedback weights a^(1 + σs/σr·step) come from a
/// 766-entry table instead of a `pow` per pixel and pass. Rows and column bands run on all cores.
package struct DomainTransform: Sendable {
    package var sigmaSpatial: Float
    package var sigmaRange: Float
    package var iterations = 3

    package init(sigmaSpatial: Float, sigmaRange: Float) {
        self.sigmaSpatial = sigmaSpatial
        self.sigmaRange = sigmaRange
    }

    /// Smooths RGB (or gray) channels as floats, the edges judged on all channels together.
    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let c = min(3, image.channels), ic = image.channels, (w, h) = (image.width, image.height)
        var planes = [Float](repeating: 0, count: w * h * c)
        // Steps to the left and upper neighbour (0 on the first column / row: unused).
        var stepX = [UInt16](repeating: 0, count: w * h), stepY = [UInt16](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { source in
            planes.withUnsafeMutableBufferPointer { planeBuffer in
                stepX.withUnsafeMutableBufferPointer { sx in
                    stepY.withUnsafeMutableBufferPointer { sy in
                        let (src, p, dx, dy) = (source.baseAddress!, planeBuffer.baseAddress!, sx.baseAddress!, sy.baseAddress!)
                        Parallel.rows(h) { rows in
                            for y in rows {
                                for x in 0..<w {
                                    let i = y * w + x, s = src + i * ic
                                    for k in 0..<c { p[i * c + k] = Float(s[k]) }
                                    if x > 0 {
                                        var total = 0
                                        for k in 0..<c { total += abs(Int(s[k]) - Int(s[k - ic])) }
                                        dx[i] = UInt16(total)
                                    }
                                    if y > 0 {
                                        var total = 0
                                        let above = s - w * ic
                                        for k in 0..<c { total += abs(Int(s[k]) - Int(above[k])) }
                                        dy[i] = UInt16(total)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let n = Float(iterations), ratio = sigmaSpatial / sigmaRange
        for iteration in 0..<iterations {
            let sigmaH = sigmaSpatial * sqrt(3) * pow(2, n - Float(iteration + 1)) / sqrt(pow(4, n) - 1)
            let logA = -sqrt(2) / sigmaH
            let weights = (0...(255 * 3)).map { step in exp(logA * (1 + ratio * Float(step))) }
            Self.filterRows(&planes, stepX, weights, width: w, height: h, channels: c)
            Self.filterColumns(&planes, stepY, weights, width: w, height: h, channels: c)
        }
        var out = [UInt8](repeating: 0, count: w * h * ic)
        planes.withUnsafeBufferPointer { planeBuffer in
            image.pixels.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { target in
                    let (p, src, dst) = (planeBuffer.baseAddress!, source.baseAddress!, target.baseAddress!)
                    Parallel.rows(h) { rows in
                        if ic == c {
                            ByteConversion.store(p + rows.lowerBound * w * c, to: dst + rows.lowerBound * w * c, count: rows.count * w * c)
                            return
                        }
                        for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                            for k in 0..<c { dst[i * ic + k] = UInt8(max(0, min(255, p[i * c + k] + 0.5))) }
                            if ic == 4 { dst[i * 4 + 3] = src[i * 4 + 3] }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: ic, pixels: out)
    }

    private static func filterRows(_ planes: inout [Float], _ steps: [UInt16], _ weights: [Float],
                                   width w: Int, height h: Int, channels c: Int) {
        planes.withUnsafeMutableBufferPointer { buffer in
            steps.withUnsafeBufferPointer { stepBuffer in
                weights.withUnsafeBufferPointer { table in
                    let (p, sp, a) = (buffer.baseAddress!, stepBuffer.baseAddress!, table.baseAddress!)
                    Parallel.rows(h) { rows in
                        var y = rows.lowerBound
                        if c == 3 {
                            // Four rows at once: twelve independent recursions keep the core busy
                            // where one row's chain would wait on each multiply-add.
                            while y + 4 <= rows.upperBound {
                                Self.recurse4(p + y * w * 3, sp + y * w, a, width: w)
                                y += 4
                            }
                        }
                        for y in y..<rows.upperBound {
                            let row = p + y * w * c, step = sp + y * w
                            if c == 3 {
                                Self.recurse(row, step, a, width: w)
                            } else {
                                for x in 1..<max(1, w) {
                                    let weight = a[Int(step[x])]
                                    for k in 0..<c { row[x * c + k] += weight * (row[(x - 1) * c + k] - row[x * c + k]) }
                                }
                                guard w > 1 else { continue }
                                for x in stride(from: w - 2, through: 0, by: -1) {
                                    let weight = a[Int(step[x + 1])]
                                    for k in 0..<c { row[x * c + k] += weight * (row[(x + 1) * c + k] - row[x * c + k]) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// One row of RGB: the recursive filter left to right, then right to left.
    @inline(__always)
    private static func recurse(_ row: UnsafeMutablePointer<Float>, _ step: UnsafePointer<UInt16>,
                                _ a: UnsafePointer<Float>, width w: Int) {
        var (r, g, b) = (row[0], row[1], row[2])
        for x in 1..<max(1, w) {
            let weight = a[Int(step[x])], o = row + x * 3
            r = o[0] + weight * (r - o[0]); g = o[1] + weight * (g - o[1]); b = o[2] + weight * (b - o[2])
            o[0] = r; o[1] = g; o[2] = b
        }
        guard w > 1 else { return }
        (r, g, b) = (row[(w - 1) * 3], row[(w - 1) * 3 + 1], row[(w - 1) * 3 + 2])
        for x in stride(from: w - 2, through: 0, by: -1) {
            let weight = a[Int(step[x + 1])], o = row + x * 3
            r = o[0] + weight * (r - o[0]); g = o[1] + weight * (g - o[1]); b = o[2] + weight * (b - o[2])
            o[0] = r; o[1] = g; o[2] = b
        }
    }

    /// Four consecutive RGB rows (`rows` points at the first; steps likewise), interleaved.
    @inline(__always)
    private static func recurse4(_ rows: UnsafeMutablePointer<Float>, _ steps: UnsafePointer<UInt16>,
                                 _ a: UnsafePointer<Float>, width w: Int) {
        guard w > 1 else { return }
        let stride3 = w * 3
        let (p0, p1, p2, p3) = (rows, rows + stride3, rows + 2 * stride3, rows + 3 * stride3)
        let (s0, s1, s2, s3) = (steps, steps + w, steps + 2 * w, steps + 3 * w)
        var v0 = SIMD4<Float>(p0[0], p0[1], p0[2], 0), v1 = SIMD4<Float>(p1[0], p1[1], p1[2], 0)
        var v2 = SIMD4<Float>(p2[0], p2[1], p2[2], 0), v3 = SIMD4<Float>(p3[0], p3[1], p3[2], 0)
        @inline(__always) func step(_ v: inout SIMD4<Float>, _ o: UnsafeMutablePointer<Float>, _ weight: Float) {
            let current = SIMD4<Float>(o[0], o[1], o[2], 0)
            v = current + weight * (v - current)
            o[0] = v[0]; o[1] = v[1]; o[2] = v[2]
        }
        for x in 1..<w {
            let i = x * 3
            step(&v0, p0 + i, a[Int(s0[x])]); step(&v1, p1 + i, a[Int(s1[x])])
            step(&v2, p2 + i, a[Int(s2[x])]); step(&v3, p3 + i, a[Int(s3[x])])
        }
        let last = (w - 1) * 3
        v0 = SIMD4<Float>(p0[last], p0[last + 1], p0[last + 2], 0); v1 = SIMD4<Float>(p1[last], p1[last + 1], p1[last + 2], 0)
        v2 = SIMD4<Float>(p2[last], p2[last + 1], p2[last + 2], 0); v3 = SIMD4<Float>(p3[last], p3[last + 1], p3[last + 2], 0)
        for x in stride(from: w - 2, through: 0, by: -1) {
            let i = x * 3
            step(&v0, p0 + i, a[Int(s0[x + 1])]); step(&v1, p1 + i, a[Int(s1[x + 1])])
            step(&v2, p2 + i, a[Int(s2[x + 1])]); step(&v3, p3 + i, a[Int(s3[x + 1])])
        }
    }

    /// row[i] += weight[i] · (other[i] − row[i]), eight lanes at a time.
    @inline(__always)
    private static func blend(_ row: UnsafeMutablePointer<Float>, toward other: UnsafeMutablePointer<Float>,
                              _ weights: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count {
            let r = UnsafeRawPointer(row + i).loadUnaligned(as: SIMD8<Float>.self)
            let o = UnsafeRawPointer(other + i).loadUnaligned(as: SIMD8<Float>.self)
            let w = UnsafeRawPointer(weights + i).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(row + i).storeBytes(of: r + w * (o - r), as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            row[i] += weights[i] * (other[i] - row[i])
            i += 1
        }
    }

    private static func filterColumns(_ planes: inout [Float], _ steps: [UInt16], _ weights: [Float],
                                      width w: Int, height h: Int, channels c: Int) {
        // Row by row (cache-friendly): each row updates from the previous one, a band of columns
        // per core; the inner loop runs along contiguous memory.
        planes.withUnsafeMutableBufferPointer { buffer in
            steps.withUnsafeBufferPointer { stepBuffer in
                weights.withUnsafeBufferPointer { table in
                    let (p, sp, a) = (buffer.baseAddress!, stepBuffer.baseAddress!, table.baseAddress!)
                    let rowLength = w * c
                    Parallel.rows(w, minimumPerBand: 64) { columns in
                        var weightRow = [Float](repeating: 0, count: columns.count * c)
                        weightRow.withUnsafeMutableBufferPointer { wr in
                            let wp = wr.baseAddress!
                            let first = columns.lowerBound * c, count = columns.count * c
                            func loadWeights(_ y: Int) {
                                let step = sp + y * w + columns.lowerBound
                                if c == 3 {
                                    for x in 0..<columns.count {
                                        let weight = a[Int(step[x])], o = wp + x * 3
                                        o[0] = weight; o[1] = weight; o[2] = weight
                                    }
                                } else {
                                    for x in 0..<columns.count {
                                        let weight = a[Int(step[x])]
                                        for k in 0..<c { wp[x * c + k] = weight }
                                    }
                                }
                            }
                            for y in 1..<max(1, h) {
                                loadWeights(y)
                                let row = p + y * rowLength + first, previous = row - rowLength
                                Self.blend(row, toward: previous, wp, count: count)
                            }
                            guard h > 1 else { return }
                            for y in stride(from: h - 2, through: 0, by: -1) {
                                loadWeights(y + 1)
                                let row = p + y * rowLength + first, next = row + rowLength
                                Self.blend(row, toward: next, wp, count: count)
                            }
                        }
                    }
                }
            }
        }
    }
}
