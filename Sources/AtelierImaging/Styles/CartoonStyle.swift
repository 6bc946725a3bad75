import Foundation

/// `cartoon` — flat colour regions with bold dark outlines.
///
/// 1. Edge-preserving smoothing: ``DomainTransform`` (σs = (20 + 60·i)·scale px, σr = 25 + 35·i),
///    which flattens textures but keeps object boundaries;
/// 2. colour quantisation in YCbCr (BT.601): luma to `levels` = 8 − ⌊4·i⌋ values, each chroma
///    channel to steps of 16 — flat bands whose hue stays the photo's (quantising R, G and B
///    apart turns a gray-blue sky purple and teal);
/// 3. bold edge mask: Sobel magnitude of the lightly blurred smoothed luma above a threshold
///    (90 − 40·i), dilated once when i > 0.5; edge pixels become near-black ink.
/// `i` is `intensity` (0.5 default); `scale` is the long side ÷ 1024, so a 4000 px photo and a
/// 1000 px one get the same look.
package struct CartoonStyle: Sendable {
    package var intensity: Float

    package init(intensity: Float = 0.5) {
        self.intensity = max(0, min(1, intensity))
    }

    package func apply(_ image: PixelBuffer) -> PixelBuffer {
        let rgb = image.convertedToRGB()
        let scale = rgb.styleScale
        let smooth = DomainTransform(sigmaSpatial: (20 + 60 * intensity) * scale, sigmaRange: 25 + 35 * intensity).apply(rgb)
        let levels = 8 - Int(4 * intensity)
        let step = 255 / Float(levels - 1)
        var edges = FloatPlane(luma: smooth).gaussianBlurred(sigma: 1 * scale).sobelMagnitude()
        if intensity > 0.5 { edges = edges.dilated() }
        let threshold = 90 - 40 * intensity
        let chromaStep: Float = 16
        let out = [UInt8](unsafeUninitializedCapacity: rgb.pixelCount * 3) { target, initialized in
            smooth.pixels.withUnsafeBufferPointer { source in
                edges.values.withUnsafeBufferPointer { edgeBuffer in
                    let (src, e, dst) = (source.baseAddress!, edgeBuffer.baseAddress!, target.baseAddress!)
                    Parallel.rows(rgb.height) { rows in
                        for index in (rows.lowerBound * rgb.width)..<(rows.upperBound * rgb.width) {
                            let o = dst + index * 3
                            if e[index] > threshold {
                                o[0] = 25; o[1] = 22; o[2] = 28
                                continue
                            }
                            let p = src + index * 3
                            let (r, g, b) = (Float(p[0]), Float(p[1]), Float(p[2]))
                            let y = 0.299 * r + 0.587 * g + 0.114 * b
                            let cb = ((-0.168736 * r - 0.331264 * g + 0.5 * b) / chromaStep).rounded() * chromaStep
                            let cr = ((0.5 * r - 0.418688 * g - 0.081312 * b) / chromaStep).rounded() * chromaStep
                            let ly = (y / step).rounded() * step
                            o[0] = UInt8(max(0, min(255, ly + 1.402 * cr + 0.5)))
                            o[1] = UInt8(max(0, min(255, ly - 0.344136 * cb - 0.714136 * cr + 0.5)))
                            o[2] = UInt8(max(0, min(255, ly + 1.772 * cb + 0.5)))
                        }
                    }
                }
            }
            initialized = rgb.pixelCount * 3
        }
        return PixelBuffer(width: rgb.width, height: rgb.height, channels: 3, pixels: out)
    }
}
