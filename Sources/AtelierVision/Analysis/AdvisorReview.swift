import Foundation

/// One advisor's reading of a photo: the eight measured scores, an overall mark weighted by the
/// advisor's focus areas, a letter grade, feedback that cites the measurements, and
/// recommendations for the weakest weighted dimensions. The `local` analysis writes the prose
/// from templates; a language model can replace `feedback` and `recommendations` (``adopt(_:)``)
/// while the scores stay the measured ones. `proseBy` says which.
package struct AdvisorReview: Sendable {
    package var advisor: Advisor
    package var scores: DimensionScores
    package var overall: Double
    package var grade: String
    package var feedback: [String]
    package var recommendations: [String]
    /// Who wrote the prose: `atelier-local templates`, or the model's `provider/model`.
    package var proseBy = "atelier-local templates"

    package init(advisor: Advisor, scores: DimensionScores) {
        self.advisor = advisor
        self.scores = scores
        let total = Dimension.allCases.reduce(0.0) { $0 + advisor.weight($1) }
        overall = ((Dimension.allCases.reduce(0.0) { $0 + scores[$1].value * advisor.weight($1) } / total) * 10).rounded() / 10
        grade = Self.grade(overall)
        let ranked = advisor.focusAreas.sorted { scores[$0].value > scores[$1].value }
        var feedback = [advisor.opening]
        for dimension in ranked {
            let score = scores[dimension]
            let phrase = String(format: score.value >= 6.5 ? advisor.praise : advisor.concern, dimension.title.lowercased())
            feedback.append("\(phrase) (\(dimension.title) \(score.rounded)/10): \(LocalCaptioner.listed(score.evidence)).")
        }
        feedback.append(advisor.closing)
        self.feedback = feedback
        let weakest = Dimension.allCases.sorted { (scores[$0].value - advisor.weight($0)) < (scores[$1].value - advisor.weight($1)) }
        recommendations = weakest.prefix(3).filter { scores[$0].value < 8 }.map { Self.advice($0, scores[$0]) }
        if recommendations.isEmpty { recommendations = ["Keep this approach: every dimension scores 8 or more."] }
    }

    /// Takes a model's feedback and recommendations; scores, overall and grade stay measured.
    package mutating func adopt(_ prose: AdvisorProse) {
        (feedback, recommendations, proseBy) = (prose.feedback, prose.recommendations, prose.writtenBy)
    }

    static func grade(_ score: Double) -> String {
        switch score {
        case 9...: "A+"
        case 8.5...: "A"
        case 8...: "A-"
        case 7.5...: "B+"
        case 7...: "B"
        case 6.5...: "B-"
        case 6...: "C+"
        case 5.5...: "C"
        case 5...: "C-"
        case 4...: "D"
        default: "F"
        }
    }

    static func advice(_ dimension: Dimension, _ score: DimensionScores.Score) -> String {
        let why = LocalCaptioner.listed(score.evidence)
        switch dimension {
        case .composition: return "Composition (\(score.rounded)/10, \(why)): place the main weight on a third, and level the horizon before you shoot or when you crop."
        case .lighting: return "Lighting (\(score.rounded)/10, \(why)): expose so neither end clips — bracket, or wait for softer light."
        case .focus: return "Focus (\(score.rounded)/10, \(why)): use a faster shutter or a support, and focus on the subject's nearest important edge."
        case .colour: return "Colour (\(score.rounded)/10, \(why)): limit the palette to a few related hues and watch the white balance."
        case .isolation: return "Subject isolation (\(score.rounded)/10, \(why)): simplify the background, move closer, or open the aperture."
        case .depth: return "Depth (\(score.rounded)/10, \(why)): add a foreground element and use the light to separate planes."
        case .impact: return "Impact (\(score.rounded)/10, \(why)): strengthen the contrast around one clear point of interest."
        case .technique: return "Technique (\(score.rounded)/10, \(why)): lower the ISO, keep highlights within range and keep the camera level."
        }
    }
}
