import Foundation

/// What draws the eye in a photo, per pixel — the measure behind the composition's centre of
/// visual mass and behind the subject-aware crop of photo variants.
package enum Saliency {
    /// Salience per pixel = gradient magnitude / 4 (detail draws the eye) + distance of its
    /// colour from the frame's mean colour (so does a colour that stands out); weight = the
    /// square of its excess over the frame's 75th-percentile salience, so what stands out
    /// outweighs a large textured area, and a textured background everywhere is not a subject.
    /// `magnitudes`: the Sobel magnitude of the luma per pixel (0 on the border).
    static func weights(_ rgb: PixelBuffer, magnitudes: [Float]) -> [Double] {
        let (w, h, c) = (rgb.width, rgb.height, rgb.channels)
        var mean = (0.0, 0.0, 0.0)
        for i in 0..<rgb.pixelCount {
            mean.0 += Double(rgb.pixels[i * c]); mean.1 += Double(rgb.pixels[i * c + 1]); mean.2 += Double(rgb.pixels[i * c + 2])
        }
        let n = Double(rgb.pixelCount)
        mean = (mean.0 / n, mean.1 / n, mean.2 / n)
        var salience = [Double](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            let dr = Double(rgb.pixels[i * c]) - mean.0, dg = Double(rgb.pixels[i * c + 1]) - mean.1, db = Double(rgb.pixels[i * c + 2]) - mean.2
            salience[i] = Double(magnitudes[i]) / 4 + (dr * dr + dg * dg + db * db).squareRoot()
        }
        let sample = stride(from: 0, to: salience.count, by: max(1, salience.count / 4096)).map { salience[$0] }.sorted()
        let typical = sample[min(sample.count - 1, sample.count * 3 / 4)]
        return salience.map { value in
            let excess = max(0, value - typical)
            return excess * excess
        }
    }

    /// The weights of `image` (RGB) with its own Sobel magnitudes.
    static func weights(_ image: PixelBuffer) -> [Double] {
        let rgb = image.convertedToRGB()
        let (w, h) = (rgb.width, rgb.height)
        guard w >= 3, h >= 3 else { return [Double](repeating: 0, count: w * h) }
        let magnitudes = FloatPlane(luma: rgb).sobelMagnitude().values
        return weights(rgb, magnitudes: magnitudes)
    }
}
