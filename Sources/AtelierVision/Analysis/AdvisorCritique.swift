import Foundation

/// What a language model is asked to ground an advisor's prose in: who the advisor is, the
/// eight measured scores with their evidence, the overall mark and grade (all fixed by the
/// measurements — the model writes words, it does not score), and the photo's caption.
package struct CritiqueRequest: Sendable {
    package var advisor: Advisor
    package var scores: DimensionScores
    package var overall: Double
    package var grade: String
    package var caption: String

    package init(review: AdvisorReview, caption: String) {
        (advisor, scores, overall, grade, self.caption) = (review.advisor, review.scores, review.overall, review.grade, caption)
    }

    /// The measured facts as the prompt states them, one dimension per line.
    package var facts: String {
        Dimension.allCases.map { dimension in
            let score = scores[dimension]
            let focus = advisor.focusAreas.contains(dimension) ? " [focus area]" : ""
            return "- \(dimension.title): \(score.rounded)/10\(focus) — measured: \(score.evidence.joined(separator: "; "))"
        }.joined(separator: "\n")
    }

    package var prompt: String {
        """
        You are writing as \(advisor.name) (\(advisor.specialty)), reviewing a photograph for a student. \
        Write in the spirit of their known concerns, in your own words: no quotations, no claims to be them.
        The photograph: \(caption)
        Scores were computed from measurements of the photo and are final; do not change them:
        \(facts)
        Overall \(String(format: "%.1f", overall))/10, grade \(grade).
        Answer with JSON only: {"feedback": [2 to 4 short paragraphs], "recommendations": [2 or 3 concrete steps]}. \
        Every paragraph and step must cite at least one of the measured facts above, with its number. \
        Say nothing about the photo that the facts and the caption do not support.
        """
    }
}

/// An advisor's feedback and recommendations written by a model (``VisionProvider/critique(_:)``).
package struct AdvisorProse: Sendable, Equatable {
    package var feedback: [String]
    package var recommendations: [String]
    /// Who wrote it: `provider/model`.
    package var writtenBy: String

    package init(feedback: [String], recommendations: [String], writtenBy: String) {
        (self.feedback, self.recommendations, self.writtenBy) = (feedback, recommendations, writtenBy)
    }

    /// The model's answer: a JSON object `{feedback, recommendations}` (inside a ``` fence or
    /// with text around it too); nil when it is not that, or either list is empty.
    package static func parse(_ text: String, writtenBy: String) -> AdvisorProse? {
        guard let start = text.firstIndex(of: "{"), let end = text.lastIndex(of: "}"), start < end,
              let object = try? JSONSerialization.jsonObject(with: Data(text[start...end].utf8)) as? [String: Any] else { return nil }
        func lines(_ key: String, max: Int) -> [String] {
            let value = object[key]
            let items = (value as? [Any] ?? (value as? String).map { [$0] } ?? []).compactMap { $0 as? String }
            return items.map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix(1200)) }.filter { !$0.isEmpty }.prefix(max).map { $0 }
        }
        let feedback = lines("feedback", max: 6), recommendations = lines("recommendations", max: 5)
        guard !feedback.isEmpty, !recommendations.isEmpty else { return nil }
        return AdvisorProse(feedback: feedback, recommendations: recommendations, writtenBy: writtenBy)
    }
}
