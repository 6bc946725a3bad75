/// The styles of the `stylize` job, by the id clients send (`style_id`).
package enum StyleID: String, Sendable, CaseIterable {
    case cartoon, sketch, popArt = "pop_art", watercolor, comic
}

/// What a client may tune, each 0…1 (docs/clients.md §3: the Caricature app's warp parameters;
/// `intensity` scales every style, 0.5 being its default look).
package struct StyleParameters: Sendable, Equatable {
    package var intensity: Double = 0.5
    package var eyes: Double = 0.5
    package var nose: Double = 0.5
    package var mouth: Double = 0.5
    package var jaw: Double = 0.5

    package init() {}

    package static let names = ["intensity", "eyes", "nose", "mouth", "jaw"]
}

extension PixelBuffer {
    /// The image's long side ÷ 1024, at least 0.25: every style sizes its kernels (blur radii,
    /// halftone cells, stroke widths) by it, so a 4000 px photo and a 1000 px one get the same look.
    var styleScale: Float { max(0.25, Float(max(width, height)) / 1024) }
}

package enum Stylizer {
    /// Renders `image` in `style` (every style has its kernel: a case without one does not compile).
    package static func render(_ image: PixelBuffer, style: StyleID, parameters: StyleParameters) -> PixelBuffer {
        switch style {
        case .sketch:
            return SketchStyle(intensity: Float(parameters.intensity)).apply(image)
        case .cartoon:
            return CartoonStyle(intensity: Float(parameters.intensity)).apply(image)
        case .popArt:
            return PopArtStyle(intensity: Float(parameters.intensity)).apply(image)
        case .comic:
            return ComicStyle(intensity: Float(parameters.intensity)).apply(image)
        case .watercolor:
            return WatercolorStyle(intensity: Float(parameters.intensity)).apply(image)
        }
    }
}
