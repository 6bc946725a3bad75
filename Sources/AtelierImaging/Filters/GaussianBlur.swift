import Foundation

extension FloatPlane {
    /// Gaussian blur with standard deviation `sigma` (pixels), edges clamped, rows split across
    /// cores. Up to σ = 3 an exact separable kernel (radius ⌈3σ⌉); above, three successive box
    /// blurs whose widths match σ (Kovesi's recipe: the central limit makes them a Gaussian to
    /// within a few per cent), costing the same whatever σ. Inner loops run along contiguous
    /// memory so the compiler vectorises them.
    package func gaussianBlurred(sigma: Float) -> FloatPlane {
        guard sigma > 0.01 else { return self }
        if sigma <= 3 {
            let kernel = Self.gaussianKernel(sigma: sigma)
            return convolvedRows(kernel).convolvedColumns(kernel)
        }
        var plane = self
        for width in Self.boxWidths(sigma: sigma, passes: 3) {
            plane = plane.boxBlurredRows(radius: width / 2).boxBlurredColumns(radius: width / 2)
        }
        return plane
    }

    static func gaussianKernel(sigma: Float) -> [Float] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-radius...radius).map { x in exp(-Float(x * x) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        for i in kernel.indices { kernel[i] /= total }
        return kernel
    }

    /// Odd box widths whose `passes` successive box blurs have variance σ² (Kovesi 2010).
    static func boxWidths(sigma: Float, passes n: Int) -> [Int] {
        let ideal = (12 * sigma * sigma / Float(n) + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        let upper = lower + 2
        let m = ((12 * sigma * sigma - Float(n * lower * lower) - Float(4 * n * lower) - Float(3 * n)) / Float(-4 * lower - 4)).rounded()
        return (0..<n).map { $0 < Int(m) ? lower : upper }
    }

    /// Each row convolved with `kernel` (odd length), edges clamped.
    func convolvedRows(_ kernel: [Float]) -> FloatPlane {
        let radius = kernel.count / 2, (w, h) = (width, height)
        var output = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                kernel.withUnsafeBufferPointer { k in
                    let (src, dst, taps) = (source.baseAddress!, target.baseAddress!, k.baseAddress!)
                    Parallel.rows(h) { rows in
                        // The row with `radius` clamped copies on each side, then one multiply-add
                        // sweep per tap over contiguous floats.
                        var padded = [Float](repeating: 0, count: w + 2 * radius)
                        padded.withUnsafeMutableBufferPointer { padBuffer in
                            let pad = padBuffer.baseAddress!
                            for y in rows {
                                let row = src + y * w, out = dst + y * w
                                for i in 0..<radius { pad[i] = row[0]; pad[w + radius + i] = row[w - 1] }
                                (pad + radius).update(from: row, count: w)
                                let first = taps[0]
                                for x in 0..<w { out[x] = pad[x] * first }
                                for i in 1..<k.count {
                                    let weight = taps[i], shifted = pad + i
                                    for x in 0..<w { out[x] += shifted[x] * weight }
                                }
                            }
                        }
                    }
                }
            }
        }
        return FloatPlane(width: w, height: h, values: output)
    }

    /// Each column convolved with `kernel` (odd length), edges clamped; row by row.
    func convolvedColumns(_ kernel: [Float]) -> FloatPlane {
        let radius = kernel.count / 2, (w, h) = (width, height)
        var output = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                kernel.withUnsafeBufferPointer { k in
                    let (src, dst, taps) = (source.baseAddress!, target.baseAddress!, k.baseAddress!)
                    Parallel.rows(h) { rows in
                        for y in rows {
                            let out = dst + y * w
                            for i in 0..<k.count {
                                let row = src + min(h - 1, max(0, y - radius + i)) * w, weight = taps[i]
                                if i == 0 {
                                    for x in 0..<w { out[x] = row[x] * weight }
                                } else {
                                    for x in 0..<w { out[x] += row[x] * weight }
                                }
                            }
                        }
                    }
                }
            }
        }
        return FloatPlane(width: w, height: h, values: output)
    }

    /// Mean over a (2·radius + 1)-pixel window along each row (running sum), edges clamped.
    func boxBlurredRows(radius r: Int) -> FloatPlane {
        guard r > 0 else { return self }
        let (w, h) = (width, height), scale = 1 / Float(2 * r + 1)
        var output = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(h) { rows in
                    for y in rows {
                        let row = src + y * w, out = dst + y * w
                        @inline(__always) func at(_ x: Int) -> Float { row[min(w - 1, max(0, x))] }
                        var sum: Float = 0
                        for x in -r...r { sum += at(x) }
                        out[0] = sum * scale
                        var x = 1
                        // Clamped reads only near the ends; the middle slides without checks.
                        while x < w && (x - r - 1 < 0 || x + r >= w) {
                            sum += at(x + r) - at(x - r - 1); out[x] = sum * scale; x += 1
                        }
                        while x + r < w {
                            sum += row[x + r] - row[x - r - 1]; out[x] = sum * scale; x += 1
                        }
                        while x < w {
                            sum += at(x + r) - at(x - r - 1); out[x] = sum * scale; x += 1
                        }
                    }
                }
            }
        }
        return FloatPlane(width: w, height: h, values: output)
    }

    /// Mean over a (2·radius + 1)-pixel window down each column: a band of columns per core,
    /// one row of running sums slid down the image.
    func boxBlurredColumns(radius r: Int) -> FloatPlane {
        guard r > 0 else { return self }
        let (w, h) = (width, height), scale = 1 / Float(2 * r + 1)
        var output = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(w, minimumPerBand: 64) { columns in
                    let first = columns.lowerBound, count = columns.count
                    var sums = [Float](repeating: 0, count: count)
                    sums.withUnsafeMutableBufferPointer { sumBuffer in
                        let sum = sumBuffer.baseAddress!
                        @inline(__always) func row(_ y: Int) -> UnsafePointer<Float> { src + min(h - 1, max(0, y)) * w + first }
                        for y in -r...r {
                            let line = row(y)
                            for x in 0..<count { sum[x] += line[x] }
                        }
                        for y in 0..<h {
                            let out = dst + y * w + first
                            for x in 0..<count { out[x] = sum[x] * scale }
                            let incoming = row(y + r + 1), outgoing = row(y - r)
                            for x in 0..<count { sum[x] += incoming[x] - outgoing[x] }
                        }
                    }
                }
            }
        }
        return FloatPlane(width: w, height: h, values: output)
    }
}
