extension PixelBuffer {
    /// Resized to `newWidth` × `newHeight`: area averaging when shrinking (every source pixel
    /// contributes by the fraction of it a target pixel covers — no aliasing), bilinear when
    /// growing. Separable: rows first into a float buffer, then columns; both passes read
    /// contiguous memory through flat weight tables, bands of rows on every core.
    package func resized(width newWidth: Int, height newHeight: Int) -> PixelBuffer {
        precondition(newWidth > 0 && newHeight > 0)
        if newWidth == width && newHeight == height { return self }
        if width == 2 * newWidth && height == 2 * newHeight { return halved() }
        let horizontal = ResampleWeights(source: width, target: newWidth)
        let vertical = ResampleWeights(source: height, target: newHeight)
        let c = channels, w = width
        // Pass 1: resample each row horizontally → height × newWidth floats.
        var middle = [Float](repeating: 0, count: height * newWidth * c)
        pixels.withUnsafeBufferPointer { source in
            middle.withUnsafeMutableBufferPointer { target in
                horizontal.withTables { firsts, offsets, weights in
                    let (src, dst) = (source.baseAddress!, target.baseAddress!)
                    Parallel.rows(height) { rows in
                        for y in rows {
                            let row = src + y * w * c
                            let out = dst + y * newWidth * c
                            for x in 0..<newWidth {
                                let start = offsets[x], taps = offsets[x + 1] - start
                                let pixel = row + firsts[x] * c, weight = weights + start
                                if c == 3 {
                                    var (r, g, b): (Float, Float, Float) = (0, 0, 0)
                                    for i in 0..<taps {
                                        let p = pixel + i * 3, k = weight[i]
                                        r += Float(p[0]) * k; g += Float(p[1]) * k; b += Float(p[2]) * k
                                    }
                                    out[x * 3] = r; out[x * 3 + 1] = g; out[x * 3 + 2] = b
                                } else {
                                    for channel in 0..<c {
                                        var sum: Float = 0
                                        for i in 0..<taps { sum += Float(pixel[i * c + channel]) * weight[i] }
                                        out[x * c + channel] = sum
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Pass 2: resample each column → newHeight × newWidth bytes, a row at a time.
        var output = [UInt8](repeating: 0, count: newHeight * newWidth * c)
        middle.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                vertical.withTables { firsts, offsets, weights in
                    let (src, dst) = (source.baseAddress!, target.baseAddress!)
                    let stride = newWidth * c
                    Parallel.rows(newHeight) { rows in
                        var line = [Float](repeating: 0, count: stride)
                        line.withUnsafeMutableBufferPointer { lineBuffer in
                            let sum = lineBuffer.baseAddress!
                            for y in rows {
                                let start = offsets[y], taps = offsets[y + 1] - start
                                let first = src + firsts[y] * stride
                                let k0 = weights[start]
                                for j in 0..<stride { sum[j] = first[j] * k0 }
                                for i in 1..<max(1, taps) {
                                    let row = first + i * stride, k = weights[start + i]
                                    for j in 0..<stride { sum[j] += row[j] * k }
                                }
                                let out = dst + y * stride
                                ByteConversion.store(sum, to: out, count: stride)
                            }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: newWidth, height: newHeight, channels: c, pixels: output)
    }

    /// Shrunk so that the longer side is at most `longSide`, keeping the aspect ratio;
    /// unchanged if it already fits.
    package func cappingLongSide(_ longSide: Int) -> PixelBuffer {
        let long = max(width, height)
        guard long > longSide else { return self }
        let scale = Double(longSide) / Double(long)
        return resized(width: max(1, Int((Double(width) * scale).rounded())),
                       height: max(1, Int((Double(height) * scale).rounded())))
    }
}

/// For each target index, the first source index and the weights of the consecutive source
/// samples it blends (summing to 1), computed once per axis and stored flat: target t uses
/// `weights[offsets[t] ..< offsets[t + 1]]` starting at source `firsts[t]`.
struct ResampleWeights {
    private var firsts: [Int] = []
    private var offsets: [Int] = [0]
    private var weights: [Float] = []

    init(source: Int, target: Int) {
        let scale = Double(source) / Double(target)
        firsts.reserveCapacity(target)
        for t in 0..<target {
            if scale >= 1 {
                // Area: target pixel t covers source interval [t·scale, (t+1)·scale).
                let start = Double(t) * scale, end = min(Double(source), Double(t + 1) * scale)
                let first = Int(start.rounded(.down)), last = min(source - 1, Int((end - 1e-9).rounded(.down)))
                for s in first...last {
                    let covered = min(end, Double(s + 1)) - max(start, Double(s))
                    weights.append(Float(covered / (end - start)))
                }
                firsts.append(first)
            } else {
                // Bilinear, pixel centres aligned.
                let position = (Double(t) + 0.5) * scale - 0.5
                let left = max(0, min(source - 1, Int(position.rounded(.down))))
                let right = min(source - 1, left + 1)
                let fraction = Float(max(0, min(1, position - Double(left))))
                firsts.append(left)
                if right == left {
                    weights.append(1)
                } else {
                    weights.append(1 - fraction)
                    weights.append(fraction)
                }
            }
            offsets.append(weights.count)
        }
    }

    func withTables<R>(_ body: (UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>) -> R) -> R {
        firsts.withUnsafeBufferPointer { f in
            offsets.withUnsafeBufferPointer { o in
                weights.withUnsafeBufferPointer { w in body(f.baseAddress!, o.baseAddress!, w.baseAddress!) }
            }
        }
    }
}

extension PixelBuffer {
    /// Exactly half the size in each direction: each output sample is the mean of a 2 × 2 block,
    /// rounded half up — the same bytes the area-averaging path gives for a factor of 2 (its
    /// weights are then ½ and ½, exact in floats), in integers, one pass. The styles work at
    /// half and quarter size, so this is their most common resize.
    func halved() -> PixelBuffer {
        let (w, h, c) = (width / 2, height / 2, channels)
        let stride = width * c
        let out = [UInt8](unsafeUninitializedCapacity: w * h * c) { target, initialized in
            pixels.withUnsafeBufferPointer { source in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(h) { rows in
                    for y in rows {
                        let upper = src + 2 * y * stride, lower = upper + stride, row = dst + y * w * c
                        for x in 0..<w {
                            for k in 0..<c {
                                let i = 2 * x * c + k
                                let sum = Int(upper[i]) + Int(upper[i + c]) + Int(lower[i]) + Int(lower[i + c])
                                row[x * c + k] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                            }
                        }
                    }
                }
            }
            initialized = w * h * c
        }
        return PixelBuffer(width: w, height: h, channels: c, pixels: out)
    }
}
