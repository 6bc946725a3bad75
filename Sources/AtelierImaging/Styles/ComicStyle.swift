import Foundation

/// `comic` — quantised colour, XDoG ink lines and screentone dots in the shadows.
///
/// 1. ``DomainTransform`` smoothing (σs = 15·scale, σr = 30), each channel quantised to 5 values;
/// 2. ink: XDoG (Winnemöller et al. 2012) on luma L ∈ 0…1 — D = G_σ(L) − τ·G_{1.6σ}(L),
///    τ = 0.98, σ = (0.7 + 0.8·i)·scale, E = 1 where D ≥ ε = 0, else 1 + tanh(φ·(D − ε)) with
///    φ = 100; a pixel is inked where E < ½. Flat regions (D = 0.02·L ≥ 0) stay clear whatever
///    their brightness; the dark side of every edge gets a line;
/// 3. screentone: where the smoothed luma is below 0.35 + 0.1·i, a regular dot grid (cells of
///    5·scale px) darkens the shadow to 25 % inside each dot.
public struct ComicStyle: Sendable {
    public var intensity: Float

    public init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    public func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.channels == 4 ? image.droppingAlpha() : (image.channels == 1 ? image.expandedToRGB() : image)
        let scale = max(0.25, Float(max(rgb.width, rgb.height)) / 1024)
        let smooth = DomainTransform(sigmaSpatial: 15 * scale, sigmaRange: 30).apply(rgb)
        let luma = FloatPlane(luma: smooth)
        let sigma = (0.7 + 0.8 * intensity) * scale
        let narrow = luma.gaussianBlurred(sigma: sigma), wide = luma.gaussianBlurred(sigma: sigma * 1.6)
        let tau: Float = 0.98, epsilon: Float = 0, phi: Float = 100
        let shadow = 0.35 + 0.1 * intensity
        let cell = max(3, 5 * scale)
        let step: Float = 255 / 4
        let (w, h) = (rgb.width, rgb.height)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let index = y * w + x
                let d = (narrow.values[index] - tau * wide.values[index]) / 255
                let edge = d >= epsilon ? 1 : 1 + tanh(phi * (d - epsilon))
                if edge < 0.5 {
                    out[index * 3] = 15; out[index * 3 + 1] = 15; out[index * 3 + 2] = 20
                    continue
                }
                var tone: Float = 1
                if luma.values[index] / 255 < shadow {
                    let u = Float(x) / cell, v = Float(y) / cell
                    let du = u - u.rounded(.down) - 0.5, dv = v - v.rounded(.down) - 0.5
                    if du * du + dv * dv < 0.09 { tone = 0.25 }
                }
                for k in 0..<3 {
                    let q = (Float(smooth.pixels[index * 3 + k]) / step).rounded() * step
                    out[index * 3 + k] = UInt8(max(0, min(255, q * tone)))
                }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }
}
