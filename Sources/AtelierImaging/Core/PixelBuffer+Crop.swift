extension PixelBuffer {
    /// The rectangle at (`x`, `y`) of `width` × `height` pixels, clipped to the image; nil when
    /// nothing of it lies inside. Rows are copied whole (one memcpy each).
    package func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> PixelBuffer? {
        let left = max(0, x), top = max(0, y)
        let right = min(width, x + cropWidth), bottom = min(height, y + cropHeight)
        guard right > left, bottom > top else { return nil }
        let (w, h, c) = (right - left, bottom - top, channels)
        let out = [UInt8](unsafeUninitializedCapacity: w * h * c) { target, initialized in
            pixels.withUnsafeBufferPointer { source in
                for row in 0..<h {
                    (target.baseAddress! + row * w * c).update(from: source.baseAddress! + ((top + row) * width + left) * c, count: w * c)
                }
            }
            initialized = w * h * c
        }
        return PixelBuffer(width: w, height: h, channels: c, pixels: out)
    }
}
