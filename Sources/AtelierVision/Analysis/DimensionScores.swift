import AtelierImaging
import Foundation

/// The eight scores of one photo, each computed from named measurements, with the evidence
/// (what was measured, in words with the number) an advisor can cite. Scores are 1–10, one
/// decimal; they are the same whoever reads them — advisors differ in weighting and voice.
package struct DimensionScores: Sendable, Equatable {
    package struct Score: Sendable, Equatable {
        package var value: Double
        /// Measured facts behind the score, each a short clause ("mean brightness 47 %").
        package var evidence: [String]
        package var rounded: Int { Int(value.rounded()) }
    }

    package var scores: [Dimension: Score]

    package subscript(_ dimension: Dimension) -> Score { scores[dimension]! }

    static func clamp(_ value: Double) -> Double { (min(10, max(1, value)) * 10).rounded() / 10 }
    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded())) %" }

    package init(_ r: PhotoReading) {
        let m = r.measurements, c = r.composition
        var scores: [Dimension: Score] = [:]
        let sharpness = PhotoReading.sharpnessIndex(m)
        let tilt = r.horizonTilt.map(abs) ?? 0

        // Composition: weight near a thirds point (or deliberately centred and concentrated), a level line.
        var composition = 5.5
        var evidence = ["visual weight centred at \(Self.percent(c.massX)) across, \(Self.percent(c.massY)) down"]
        if c.thirdsDistance < 0.06 { composition += 2.5; evidence.append("sits on a rule-of-thirds point") }
        else if c.thirdsDistance < 0.12 { composition += 1.5; evidence.append("close to a rule-of-thirds point") }
        else if c.centreDistance < 0.05 && c.massConcentration > 0.3 { composition += 1.0; evidence.append("a centred, concentrated subject") }
        else if c.massConcentration < 0.1 { composition -= 0.5; evidence.append("weight spread evenly, with no clear anchor") }
        if let horizon = r.horizonTilt {
            if abs(horizon) < 0.75 { composition += 1; evidence.append("a level horizontal line") }
            else { composition -= min(3, abs(horizon) * 0.6); evidence.append("the dominant line tilts \(String(format: "%.1f", abs(horizon)))°") }
        }
        scores[.composition] = Score(value: Self.clamp(composition), evidence: evidence)

        // Lighting & exposure: distance from a balanced mean, clipping at either end, usable tonal range.
        let exposureError = abs(m.meanLuma - 0.48)
        var lighting = 9 - exposureError * 14 - m.clippedHighlights * 25 - m.clippedShadows * 18 + min(1, m.rmsContrast * 5)
        if r.key == .lowKey || r.key == .highKey, m.rmsContrast > 0.18 { lighting += 1.5 }   // a deliberate key with range
        scores[.lighting] = Score(value: Self.clamp(lighting), evidence: [
            "mean brightness \(Self.percent(m.meanLuma))", "\(Self.percent(m.clippedHighlights)) of pixels blown to white",
            "\(Self.percent(m.clippedShadows)) crushed to black"])

        // Focus & sharpness: Laplacian spread per unit of contrast.
        // Piecewise so the score agrees with the caption's words: soft below 0.22 (≤ 6.5), crisp above 0.45 (≥ 9.5).
        let focus = sharpness <= 0.22 ? 1 + sharpness * 25 : 6.5 + (sharpness - 0.22) * 13
        scores[.focus] = Score(value: Self.clamp(focus), evidence: [
            "sharpness index \(String(format: "%.2f", sharpness)) (Laplacian σ \(String(format: "%.0f", m.laplacianVariance.squareRoot())) per contrast)"])

        // Colour harmony: a palette of few related hues, colourfulness neither garish nor dead.
        let hues = Set(r.palette.filter { !LocalCaptioner.neutrals.contains($0) }.map { $0.split(separator: " ").last.map(String.init) ?? $0 })
        var colour = 6.5
        switch r.colour {
        case .monochrome: colour = 6
        case .muted: colour += 1
        case .moderate: colour += 1.5
        case .vivid: colour += 0.5
        case .intense: colour -= 1
        }
        if hues.count >= 3 { colour -= 1 }
        if abs(r.warmth) > 0.35 { colour += 0.5 }
        scores[.colour] = Score(value: Self.clamp(colour), evidence: [
            "colourfulness \(String(format: "%.0f", m.colourfulness)) (\(r.colour.rawValue))",
            r.palette.isEmpty ? "no dominant colour" : "dominant colours: \(LocalCaptioner.listed(r.palette))"])

        // Subject isolation: how concentrated the visual mass is.
        scores[.isolation] = Score(value: Self.clamp(2 + c.massConcentration * 12), evidence: [
            "visual mass concentration \(Self.percent(c.massConcentration))"])

        // Depth & perspective: tonal range (the 5th to 95th luma percentile) and contrast as depth cues.
        let range = Self.tonalRange(m.lumaHistogram)
        scores[.depth] = Score(value: Self.clamp(2 + range * 6 + m.rmsContrast * 8), evidence: [
            "tonal range \(Self.percent(range)) of the scale (5th–95th percentile)"])

        // Visual impact: contrast, colour and a clear point of interest together.
        scores[.impact] = Score(value: Self.clamp(2.5 + m.rmsContrast * 12 + min(3, m.colourfulness / 25) + c.massConcentration * 4), evidence: [
            "RMS contrast \(Self.percent(m.rmsContrast))", "colourfulness \(String(format: "%.0f", m.colourfulness))"])

        // Technical execution: noise, clipping, blur and tilt as faults.
        let technique = 9.5 - max(0, m.noiseSigma - 3) * 0.35 - (m.clippedHighlights + m.clippedShadows) * 15
            - max(0, 0.25 - sharpness) * 14 - min(2, tilt * 0.3)
        scores[.technique] = Score(value: Self.clamp(technique), evidence: [
            "noise σ \(String(format: "%.1f", m.noiseSigma)) levels", "sharpness index \(String(format: "%.2f", sharpness))"]
            + (tilt >= 0.75 ? ["a \(String(format: "%.1f", tilt))° tilt"] : []))
        self.scores = scores
    }

    static func tonalRange(_ histogram: [Double]) -> Double {
        var cumulative = 0.0, low = 0, high = 255
        var foundLow = false
        for (level, share) in histogram.enumerated() {
            cumulative += share
            if !foundLow, cumulative >= 0.05 { low = level; foundLow = true }
            if cumulative >= 0.95 { high = level; break }
        }
        return Double(max(0, high - low)) / 255
    }
}
