import AtelierImaging
import Foundation

/// The measurements of a photo read as the words a photographer would use — key, contrast,
/// sharpness, grain, colour, palette, frame, horizon, where the weight sits — each with how
/// clearly the numbers put it in its class (0 on a class boundary … 1 deep inside). Captions
/// and critiques are composed from this, so every word traces back to a measured number.
package struct PhotoReading: Sendable, Equatable {
    package enum Key: String, Sendable { case lowKey = "low-key", dark, balanced, bright, highKey = "high-key" }
    package enum Contrast: String, Sendable { case flat, soft, moderate, strong }
    package enum Sharpness: String, Sendable { case blurred, soft, sharp, crisp }
    package enum Colour: String, Sendable { case monochrome, muted, moderate, vivid, intense }
    package enum Frame: String, Sendable { case panorama, landscape, square, portrait, tall }

    package var key: Key
    package var contrast: Contrast
    package var sharpness: Sharpness
    package var colour: Colour
    package var frame: Frame
    /// Named dominant colours (≥ 10 % of the frame each), largest first, at most three.
    package var palette: [String]
    /// Warm (positive) or cool (negative) cast, −1…1, from the mean red − blue.
    package var warmth: Double
    /// Noise σ in luma levels (Immerkær) and whether it shows.
    package var noise: Double
    package var grainy: Bool { noise >= 6 }
    package var blownHighlights: Bool
    package var crushedShadows: Bool
    /// Horizon tilt in degrees when a near-level line stands out, else nil.
    package var horizonTilt: Double?
    /// Where the visual weight sits: "the upper-left third", "the centre", … ; nil when spread out.
    package var weightPosition: String?
    /// How clearly the cues hold, 0…1 (mean over key, contrast, sharpness, colour).
    package var clarity: Double
    /// Under 32 pixels on the long side (an icon, the API docs' 1 × 1 example): there is no
    /// detail, texture or composition to judge, only colour and tone.
    package var tiny = false

    package let measurements: ImageMeasurements
    package let composition: Composition

    /// Laplacian standard deviation per unit of RMS contrast: sharpness that does not rise just
    /// because a photo has more contrast.
    package static func sharpnessIndex(_ m: ImageMeasurements) -> Double {
        m.laplacianVariance.squareRoot() / (m.rmsContrast * 255 + 4)
    }

    package init(measurements m: ImageMeasurements, composition c: Composition) {
        measurements = m
        composition = c
        var margins: [Double] = []
        func classify<T>(_ value: Double, _ bounds: [Double], _ classes: [T]) -> T {
            let index = bounds.firstIndex(where: { value < $0 }) ?? bounds.count
            // Distance to the nearest boundary relative to the width of the neighbouring band.
            let nearest = bounds.map { abs(value - $0) }.min() ?? 1
            let band = bounds.count > 1 ? (bounds.last! - bounds.first!) / Double(bounds.count - 1) : max(bounds[0], 1)
            margins.append(min(1, nearest / band))
            return classes[index]
        }
        key = classify(m.meanLuma, [0.22, 0.38, 0.62, 0.78], [.lowKey, .dark, .balanced, .bright, .highKey])
        contrast = classify(m.rmsContrast, [0.08, 0.15, 0.24], [.flat, .soft, .moderate, .strong])
        sharpness = classify(Self.sharpnessIndex(m), [0.1, 0.22, 0.45], [.blurred, .soft, .sharp, .crisp])
        colour = classify(m.colourfulness, [8, 20, 45, 75], [.monochrome, .muted, .moderate, .vivid, .intense])
        clarity = margins.reduce(0, +) / Double(margins.count)
        switch m.aspectRatio {
        case 1.9...: frame = .panorama
        case 1.08...: frame = .landscape
        case 0.93...: frame = .square
        case 0.6...: frame = .portrait
        default: frame = .tall
        }
        var names: [String] = []
        for colour in m.dominantColours where colour.fraction >= 0.1 {
            let name = ColourNames.name(red: colour.red, green: colour.green, blue: colour.blue)
            if !names.contains(name) { names.append(name) }
        }
        palette = Array(names.prefix(3))
        let total = m.dominantColours.reduce(0) { $0 + $1.fraction }
        let redMinusBlue = m.dominantColours.reduce(0.0) { $0 + (Double($1.red) - Double($1.blue)) * $1.fraction } / max(total, 1e-9)
        warmth = max(-1, min(1, redMinusBlue / 80))
        noise = m.noiseSigma
        blownHighlights = m.clippedHighlights >= 0.05
        crushedShadows = m.clippedShadows >= 0.05
        horizonTilt = c.horizonStrength >= 0.08 ? c.horizonTilt : nil
        if c.massConcentration < 0.15 {
            weightPosition = nil
        } else if c.centreDistance < 0.07 {
            weightPosition = "the centre"
        } else if c.thirdsDistance < 0.09 {
            let vertical = c.massY < 0.5 ? "upper" : "lower", horizontal = c.massX < 0.5 ? "left" : "right"
            weightPosition = "the \(vertical)-\(horizontal) third"
        } else if abs(c.massX - 0.5) > abs(c.massY - 0.5) {
            weightPosition = c.massX < 0.5 ? "the left side" : "the right side"
        } else {
            weightPosition = c.massY < 0.5 ? "the top of the frame" : "the bottom of the frame"
        }
    }

    package static func read(_ image: PixelBuffer) -> PhotoReading {
        // Both measure the ≤ 512 px analysis copy: make it once (the aspect ratio from the original).
        let small = image.cappingLongSide(ImageMeasurements.analysisSize)
        var measurements = ImageMeasurements.measure(small)
        measurements.aspectRatio = Double(image.width) / Double(image.height)
        var reading = PhotoReading(measurements: measurements, composition: .measure(small))
        if max(image.width, image.height) < 32 {
            reading.tiny = true
            reading.clarity = 0
            reading.horizonTilt = nil
            reading.weightPosition = nil
        }
        return reading
    }
}
