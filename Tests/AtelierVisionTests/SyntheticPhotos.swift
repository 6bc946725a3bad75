import AtelierImaging
import Foundation

/// Small synthetic "photos" with known properties: a scene of overlapping coloured blocks on a
/// textured ground (edges and texture, like a real photo has), then varied one property at a time.
enum SyntheticPhotos {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    /// `saturation` 0 (grey) … 1 (full colour); `brightness` scales every value (0.25 dark … 1.3 bright, clipped).
    static func scene(width: Int = 480, height: Int = 320, saturation: Double = 0.6, brightness: Double = 1, seed: UInt64 = 1) -> PixelBuffer {
        var generator = Generator(state: seed)
        var image = PixelBuffer(width: width, height: height, channels: 3, fill: 0)
        // Textured ground: a gentle gradient plus fine noise.
        for y in 0..<height {
            for x in 0..<width {
                let base = 90 + 60 * Double(y) / Double(height) + Double(generator.next() % 21) - 10
                for k in 0..<3 { image.pixels[(y * width + x) * 3 + k] = UInt8(max(0, min(255, base))) }
            }
        }
        let palette: [(Double, Double, Double)] = [(200, 60, 40), (40, 110, 200), (230, 190, 50), (60, 160, 80), (150, 70, 160)]
        for index in 0..<14 {
            let colour = palette[index % palette.count]
            let w = Int(generator.next() % UInt64(width / 3)) + 20, h = Int(generator.next() % UInt64(height / 3)) + 20
            let x0 = Int(generator.next() % UInt64(width - w)), y0 = Int(generator.next() % UInt64(height - h))
            let gray = (colour.0 + colour.1 + colour.2) / 3
            let mixed = [colour.0, colour.1, colour.2].map { gray + ($0 - gray) * saturation }
            for y in y0..<(y0 + h) {
                for x in x0..<(x0 + w) {
                    for k in 0..<3 { image.pixels[(y * width + x) * 3 + k] = UInt8(max(0, min(255, mixed[k] + Double(generator.next() % 11) - 5))) }
                }
            }
        }
        if brightness != 1 {
            for i in image.pixels.indices { image.pixels[i] = UInt8(max(0, min(255, Double(image.pixels[i]) * brightness))) }
        }
        return image
    }

    /// A landscape: blue sky over a textured green field, the horizon through the centre at
    /// `degrees` (rising to the right when positive), a small red barn on the left third.
    static func horizon(degrees: Double, width: Int = 480, height: Int = 320) -> PixelBuffer {
        var generator = Generator(state: 3)
        var image = PixelBuffer(width: width, height: height, channels: 3, fill: 0)
        let slope = tan(degrees * .pi / 180)
        for y in 0..<height {
            for x in 0..<width {
                let boundary = Double(height) / 2 - (Double(x) - Double(width) / 2) * slope
                let noise = Double(generator.next() % 13) - 6
                let pixel: [Double] = Double(y) < boundary ? [120 + noise, 170 + noise, 230 + noise] : [60 + noise, 120 + noise, 50 + noise]
                for k in 0..<3 { image.pixels[(y * width + x) * 3 + k] = UInt8(max(0, min(255, pixel[k]))) }
            }
        }
        for y in (height / 2 - 40)..<(height / 2 - 5) {
            for x in (width / 3 - 20)..<(width / 3 + 20) {
                image.pixels[(y * width + x) * 3] = 170; image.pixels[(y * width + x) * 3 + 1] = 40; image.pixels[(y * width + x) * 3 + 2] = 30
            }
        }
        return image
    }

    /// Each channel blurred with a Gaussian of `sigma` pixels.
    static func blurred(_ image: PixelBuffer, sigma: Float) -> PixelBuffer {
        var out = image
        for channel in 0..<image.channels {
            let plane = FloatPlane(width: image.width, height: image.height,
                                   values: (0..<image.pixelCount).map { Float(image.pixels[$0 * image.channels + channel]) })
            let smooth = plane.gaussianBlurred(sigma: sigma)
            for i in 0..<image.pixelCount { out.pixels[i * image.channels + channel] = UInt8(max(0, min(255, smooth.values[i].rounded()))) }
        }
        return out
    }

    static func transposed(_ image: PixelBuffer) -> PixelBuffer {
        var out = PixelBuffer(width: image.height, height: image.width, channels: image.channels)
        for y in 0..<image.height {
            for x in 0..<image.width {
                for k in 0..<image.channels {
                    out.pixels[(x * image.height + y) * image.channels + k] = image.pixels[(y * image.width + x) * image.channels + k]
                }
            }
        }
        return out
    }
}
