/// A single-channel float image: the working format of the filters (no rounding between steps).
package struct FloatPlane: Sendable {
    package let width: Int
    package let height: Int
    package var values: [Float]

    package init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height)
        (self.width, self.height, self.values) = (width, height, values)
    }

    /// Luma of `image` on a 0…255 scale.
    package init(luma image: PixelBuffer) {
        let gray = image.grayscale()
        var values = [Float](repeating: 0, count: gray.pixelCount)
        gray.pixels.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { ByteConversion.load(source.baseAddress!, to: $0.baseAddress!, count: $0.count) }
        }
        self.init(width: gray.width, height: gray.height, values: values)
    }
}
