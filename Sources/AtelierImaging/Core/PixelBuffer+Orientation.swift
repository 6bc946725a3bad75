extension PixelBuffer {
    /// The image as it should be seen, given the EXIF orientation of its stored pixels.
    /// Orientations 5–8 swap width and height.
    package func oriented(_ orientation: ExifOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let (w, h, c) = (width, height, channels)
        let swaps = orientation.rawValue >= 5
        let (outW, outH) = swaps ? (h, w) : (w, h)
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<outH {
                    for x in 0..<outW {
                        // The stored pixel that lands at (x, y) when displayed.
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let from = (sy * w + sx) * c, to = (y * outW + x) * c
                        for k in 0..<c { target[to + k] = source[from + k] }
                    }
                }
            }
        }
        return PixelBuffer(width: outW, height: outH, channels: c, pixels: output)
    }
}
