import Foundation

/// `cartoon` — flat colour regions with bold dark outlines.
///
/// 1. Edge-preserving smoothing: ``DomainTransform`` (σs = (20 + 60·i)·scale px, σr = 25 + 35·i),
///    which flattens textures but keeps object boundaries;
/// 2. colour quantisation: each channel of the smoothed image to `levels` = 8 − ⌊4·i⌋ values;
/// 3. bold edge mask: Sobel magnitude of the lightly blurred smoothed luma above a threshold
///    (90 − 40·i), dilated once when i > 0.5; edge pixels become near-black ink.
/// `i` is `intensity` (0.5 default); `scale` is the long side ÷ 1024, so a 4000 px photo and a
/// 1000 px one get the same look.
public struct CartoonStyle: Sendable {
    public var intensity: Float

    public init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    public func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.channels == 4 ? image.droppingAlpha() : (image.channels == 1 ? image.expandedToRGB() : image)
        let scale = max(0.25, Float(max(rgb.width, rgb.height)) / 1024)
        let smooth = DomainTransform(sigmaSpatial: (20 + 60 * intensity) * scale, sigmaRange: 25 + 35 * intensity).apply(rgb)
        let levels = 8 - Int(4 * intensity)
        let step = 255 / Float(levels - 1)
        var edges = FloatPlane(luma: smooth).gaussianBlurred(sigma: 1 * scale).sobelMagnitude()
        if intensity > 0.5 { edges = edges.dilated() }
        let threshold = 90 - 40 * intensity
        var out = [UInt8](repeating: 0, count: rgb.pixelCount * 3)
        for index in 0..<rgb.pixelCount {
            if edges.values[index] > threshold {
                out[index * 3] = 25; out[index * 3 + 1] = 22; out[index * 3 + 2] = 28
            } else {
                for k in 0..<3 {
                    let v = Float(smooth.pixels[index * 3 + k])
                    out[index * 3 + k] = UInt8(min(255, (v / step).rounded() * step))
                }
            }
        }
        return PixelBuffer(width: rgb.width, height: rgb.height, channels: 3, pixels: out)
    }
}
