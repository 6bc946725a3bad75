extension PixelBuffer {
    /// Luma (Rec. 601: 0.299 R + 0.587 G + 0.114 B) as a one-channel image; alpha ignored.
    package func grayscale() -> PixelBuffer {
        if channels == 1 { return self }
        var gray = [UInt8](repeating: 0, count: pixelCount)
        let c = channels
        pixels.withUnsafeBufferPointer { source in
            gray.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                Parallel.rows(height) { rows in
                    for index in (rows.lowerBound * width)..<(rows.upperBound * width) {
                        let p = src + index * c
                        // Fixed point: weights × 2^16, rounded.
                        let value = (19595 * Int(p[0]) + 38470 * Int(p[1]) + 7471 * Int(p[2]) + 32768) >> 16
                        dst[index] = UInt8(value)
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 1, pixels: gray)
    }

    /// Gray → RGB (each sample repeated); RGB and RGBA unchanged.
    func expandedToRGB() -> PixelBuffer {
        guard channels < 3 else { return self }
        var rgb = [UInt8](repeating: 0, count: pixelCount * 3)
        for index in 0..<pixelCount {
            let v = pixels[index * channels]
            rgb[index * 3] = v; rgb[index * 3 + 1] = v; rgb[index * 3 + 2] = v
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
    }

    /// The image as the styles take it: RGBA loses its alpha, gray is repeated, other shapes
    /// (RGB) are unchanged.
    func convertedToRGB() -> PixelBuffer {
        channels == 4 ? droppingAlpha() : (channels == 1 ? expandedToRGB() : self)
    }
}
