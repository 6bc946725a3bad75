import Foundation

/// `analysis`: advisors review an uploaded photo; the result is an HTML report (a blob) and the
/// grades. Option `advisor`: an advisor id, `all` (the default), `random`, or ids separated by
/// commas; the API turns it into the `advisors` the job runs, so a retry reviews with the same
/// ones. `source_name` as for ``UploadJob``.
///
/// The advisors themselves live with the vision code; this contract knows their ids only, from
/// the `roster` it is made with (so the job contracts need no network client).
package struct AnalysisJob: JobContract {
    package static let kind = "analysis"
    package static let image = ImageRule.required

    /// Every advisor's id, in the order `all` runs them.
    package let roster: [String]

    package init(roster: [String]) {
        self.roster = roster
    }

    package struct Payload: Codable, Sendable, Equatable {
        package var input: BlobInput
        /// The advisors' ids, in order; absent means all of them.
        package var advisors: [String]?
        package var sourceName: String?

        package init(input: BlobInput, advisors: [String]?, sourceName: String? = nil) {
            (self.input, self.advisors, self.sourceName) = (input, advisors, sourceName)
        }

        enum CodingKeys: String, CodingKey {
            case input, advisors, sourceName = "source_name"
        }
    }

    /// The step a running analysis reports with its progress (the detail of its `progress`
    /// events, which Mondrian's stream shows).
    package struct Progress: Codable, Sendable, Equatable {
        package var currentAdvisor: Int
        package var totalAdvisors: Int
        /// `analyzing`, then `finalizing`.
        package var stepPhase: String

        package init(currentAdvisor: Int, totalAdvisors: Int, stepPhase: String) {
            (self.currentAdvisor, self.totalAdvisors, self.stepPhase) = (currentAdvisor, totalAdvisors, stepPhase)
        }

        enum CodingKeys: String, CodingKey {
            case currentAdvisor = "current_advisor", totalAdvisors = "total_advisors", stepPhase = "step_phase"
        }
    }

    package struct Result: Codable, Sendable, Equatable {
        /// The HTML report.
        package var resultBlob: String
        package var contentType: String
        package var grade: String
        package var overall: Double
        package var caption: String
        package var advisors: [AdvisorResult]
        /// The photo's ThumbHash placeholder (about 25 bytes, base64), for the job view's
        /// `thumbnail_url`: a client paints it before the image arrives.
        package var thumbhash: String?

        package init(resultBlob: String, contentType: String = "text/html; charset=utf-8", grade: String, overall: Double,
                    caption: String, advisors: [AdvisorResult], thumbhash: String? = nil) {
            (self.resultBlob, self.contentType, self.grade, self.overall, self.caption, self.advisors) =
                (resultBlob, contentType, grade, overall, caption, advisors)
            self.thumbhash = thumbhash
        }

        enum CodingKeys: String, CodingKey {
            case grade, overall, caption, advisors, thumbhash, resultBlob = "result_blob", contentType = "content_type"
        }
    }

    package struct AdvisorResult: Codable, Sendable, Equatable {
        package var id: String
        package var name: String
        package var grade: String
        package var overall: Double
        /// Dimension id → score out of 10.
        package var scores: [String: Int]
        /// Who wrote the prose: the advisor's templates or a model.
        package var proseBy: String

        package init(id: String, name: String, grade: String, overall: Double, scores: [String: Int], proseBy: String) {
            (self.id, self.name, self.grade, self.overall, self.scores, self.proseBy) = (id, name, grade, overall, scores, proseBy)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, grade, overall, scores, proseBy = "prose_by"
        }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        let input = try requireImage(input)
        return Payload(input: input, advisors: try advisors(choosing: options["advisor"]), sourceName: options["source_name"]?.string)
    }

    /// `id`, `all`, `random` or `a,b,c` (absent or null: all) → the advisors' ids, or an error
    /// naming `advisor` and the choices.
    package func advisors(choosing value: JSONValue?) throws(JobOptionsError) -> [String] {
        guard let value, !value.isNull else { return roster }
        guard let text = value.string?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else {
            throw JobOptionsError(field: "advisor", message: "advisor must be an advisor id, all, random, or ids separated by commas")
        }
        if text == "all" { return roster }
        if text == "random", let one = roster.randomElement() { return [one] }
        var chosen: [String] = []
        for id in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !id.isEmpty {
            guard roster.contains(id) else {
                throw JobOptionsError(field: "advisor",
                                      message: "unknown advisor '\(id.prefix(40))'; one of: \(roster.joined(separator: ", ")), all, random")
            }
            if !chosen.contains(id) { chosen.append(id) }
        }
        guard !chosen.isEmpty else { throw JobOptionsError(field: "advisor", message: "advisor names no advisor") }
        return chosen
    }
}
