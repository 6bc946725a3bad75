import Foundation

/// A single-channel float image: the working format of the filters (no rounding between steps).
public struct FloatPlane: Sendable {
    public let width: Int
    public let height: Int
    public var values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height)
        (self.width, self.height, self.values) = (width, height, values)
    }

    /// Luma of `image` on a 0…255 scale.
    public init(luma image: PixelBuffer) {
        let gray = image.grayscale()
        self.init(width: gray.width, height: gray.height, values: gray.pixels.map(Float.init))
    }

    /// Back to bytes, clamped.
    public func pixelBuffer() -> PixelBuffer {
        PixelBuffer(width: width, height: height, channels: 1,
                    pixels: values.map { UInt8(max(0, min(255, $0 + 0.5))) })
    }
}

extension FloatPlane {
    /// Gaussian blur with standard deviation `sigma` (pixels), separable, kernel radius ⌈3σ⌉,
    /// edges clamped. Rows are split across cores.
    public func gaussianBlurred(sigma: Float) -> FloatPlane {
        guard sigma > 0.01 else { return self }
        let kernel = Self.gaussianKernel(sigma: sigma)
        let radius = kernel.count / 2
        let (w, h) = (width, height)
        var horizontal = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                kernel.withUnsafeBufferPointer { k in
                    Parallel.rows(h) { rows in
                        for y in rows {
                            let row = src + y * w, out = dst + y * w
                            for x in 0..<w {
                                var sum: Float = 0
                                if x >= radius && x + radius < w {
                                    for i in 0..<k.count { sum += row[x - radius + i] * k[i] }
                                } else {
                                    for i in 0..<k.count { sum += row[min(w - 1, max(0, x - radius + i))] * k[i] }
                                }
                                out[x] = sum
                            }
                        }
                    }
                }
            }
        }
        var output = [Float](repeating: 0, count: values.count)
        horizontal.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                kernel.withUnsafeBufferPointer { k in
                    Parallel.rows(h) { rows in
                        for y in rows {
                            let out = dst + y * w
                            for i in 0..<k.count {
                                let row = src + min(h - 1, max(0, y - radius + i)) * w
                                let weight = k[i]
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

    static func gaussianKernel(sigma: Float) -> [Float] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-radius...radius).map { x in exp(-Float(x * x) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        for i in kernel.indices { kernel[i] /= total }
        return kernel
    }
}
