extension PixelBuffer {
    /// Resized to `newWidth` × `newHeight`: area averaging when shrinking (every source pixel
    /// contributes by the fraction of it a target pixel covers — no aliasing), bilinear when
    /// growing. Separable: columns first into a float buffer, then rows.
    public func resized(width newWidth: Int, height newHeight: Int) -> PixelBuffer {
        precondition(newWidth > 0 && newHeight > 0)
        if newWidth == width && newHeight == height { return self }
        let horizontal = ResampleWeights(source: width, target: newWidth)
        let vertical = ResampleWeights(source: height, target: newHeight)
        let c = channels
        // Pass 1: resample each row horizontally → height × newWidth floats.
        var middle = [Float](repeating: 0, count: height * newWidth * c)
        pixels.withUnsafeBufferPointer { source in
            middle.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(height) { rows in
                    for y in rows {
                        let row = src + y * width * c
                        let out = dst + y * newWidth * c
                        for x in 0..<newWidth {
                            let (first, weights) = horizontal.taps(x)
                            for k in 0..<c {
                                var sum: Float = 0
                                for (i, weight) in weights.enumerated() { sum += Float(row[(first + i) * c + k]) * weight }
                                out[x * c + k] = sum
                            }
                        }
                    }
                }
            }
        }
        // Pass 2: resample each column → newHeight × newWidth bytes.
        var output = [UInt8](repeating: 0, count: newHeight * newWidth * c)
        middle.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                let stride = newWidth * c
                Parallel.rows(newHeight) { rows in
                    var line = [Float](repeating: 0, count: stride)
                    for y in rows {
                        let (first, weights) = vertical.taps(y)
                        for i in 0..<stride { line[i] = 0 }
                        for (i, weight) in weights.enumerated() {
                            let row = src + (first + i) * stride
                            for j in 0..<stride { line[j] += row[j] * weight }
                        }
                        let out = dst + y * stride
                        for j in 0..<stride { out[j] = UInt8(max(0, min(255, line[j] + 0.5))) }
                    }
                }
            }
        }
        return PixelBuffer(width: newWidth, height: newHeight, channels: c, pixels: output)
    }

    /// Shrunk so that the longer side is at most `longSide`, keeping the aspect ratio;
    /// unchanged if it already fits.
    public func cappingLongSide(_ longSide: Int) -> PixelBuffer {
        let long = max(width, height)
        guard long > longSide else { return self }
        let scale = Double(longSide) / Double(long)
        return resized(width: max(1, Int((Double(width) * scale).rounded())),
                       height: max(1, Int((Double(height) * scale).rounded())))
    }
}

/// For each target index, the first source index and the weights of the source samples it
/// blends (summing to 1), computed once per axis.
struct ResampleWeights {
    private var firsts: [Int] = []
    private var weights: [[Float]] = []

    init(source: Int, target: Int) {
        let scale = Double(source) / Double(target)
        for t in 0..<target {
            if scale >= 1 {
                // Area: target pixel t covers source interval [t·scale, (t+1)·scale).
                let start = Double(t) * scale, end = min(Double(source), Double(t + 1) * scale)
                let first = Int(start.rounded(.down)), last = min(source - 1, Int((end - 1e-9).rounded(.down)))
                var row: [Float] = []
                for s in first...last {
                    let covered = min(end, Double(s + 1)) - max(start, Double(s))
                    row.append(Float(covered / (end - start)))
                }
                firsts.append(first)
                weights.append(row)
            } else {
                // Bilinear, pixel centres aligned.
                let position = (Double(t) + 0.5) * scale - 0.5
                let left = max(0, min(source - 1, Int(position.rounded(.down))))
                let right = min(source - 1, left + 1)
                let fraction = Float(max(0, min(1, position - Double(left))))
                if right == left {
                    firsts.append(left)
                    weights.append([1])
                } else {
                    firsts.append(left)
                    weights.append([1 - fraction, fraction])
                }
            }
        }
    }

    func taps(_ index: Int) -> (first: Int, weights: [Float]) {
        (firsts[index], weights[index])
    }
}
