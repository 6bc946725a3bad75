/// An image in memory: 8-bit samples, rows packed top to bottom, `channels` per pixel
/// (1 gray, 3 RGB, 4 RGBA). One contiguous array — kernels walk it with unsafe buffers.
package struct PixelBuffer: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package let channels: Int
    package var pixels: [UInt8]

    package init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && (1...4).contains(channels), "bad image shape \(width)x\(height)x\(channels)")
        precondition(pixels.count == width * height * channels, "pixel count does not match the shape")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// A blank image of one colour.
    package init(width: Int, height: Int, channels: Int, fill: UInt8 = 0) {
        self.init(width: width, height: height, channels: channels,
                  pixels: [UInt8](repeating: fill, count: width * height * channels))
    }

    package var pixelCount: Int { width * height }

    /// The same pixels with the alpha channel dropped (RGBA → RGB); other shapes unchanged.
    package func droppingAlpha() -> PixelBuffer {
        guard channels == 4 else { return self }
        var rgb = [UInt8](repeating: 0, count: pixelCount * 3)
        pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                for index in 0..<pixelCount {
                    target[index * 3] = source[index * 4]
                    target[index * 3 + 1] = source[index * 4 + 1]
                    target[index * 3 + 2] = source[index * 4 + 2]
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
    }
}
