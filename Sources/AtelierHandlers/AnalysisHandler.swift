import AtelierImaging
import AtelierJobs
import AtelierQueue
import AtelierStorage
import AtelierVision
import AtelierWorker
import Foundation

/// `analysis`: the uploaded photo measured once, then reviewed by each chosen advisor in turn
/// (progress "Conjuring Ansel Adams", with `current_advisor`/`total_advisors`/`step_phase` in the
/// progress detail), a caption from the configured provider, and a self-contained HTML report
/// stored as the result blob (served by a signed `result_url`). Scores come from measurements;
/// the prose is the advisors' templates, or — with a provider whose model writes it (`openai`)
/// — the model's, grounded in those scores (an unusable answer falls back to the templates and
/// the report says so).
package struct AnalysisHandler: JobHandler {
    package let kind = "analysis"
    let blobs: any BlobStore
    let limits: ImageLimits
    let provider: any VisionProvider

    package init(blobs: any BlobStore, provider: any VisionProvider, limits: ImageLimits = ImageLimits()) {
        (self.blobs, self.provider, self.limits) = (blobs, provider, limits)
    }

    package var timeout: Duration? { .seconds(180) }

    package func run(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: AnalysisJob.Payload.self)
        let ids = payload.advisors ?? Advisor.all.map(\.id)
        let advisors = try ids.map { id -> Advisor in
            guard let advisor = Advisor.named(id) else { throw JobFailure.permanent("unknown advisor '\(id)'") }
            return advisor
        }
        guard !advisors.isEmpty else { throw JobFailure.permanent("no advisors chosen") }
        try await context.progress(2, step: "Reading the photo")
        let bytes = try await JobInput.read(payload.input.blob, from: blobs)
        try await context.progress(5, step: "Measuring light, colour and composition")
        let limits = self.limits
        let (image, reading, color, thumbhash): (PixelBuffer, PhotoReading, ColorReport, String) = try await context.offload { _ in
            do {
                let read = try ImageCodec.decodeReporting(bytes, limits: limits, minimumLongSide: 640)
                let image = read.image.cappingLongSide(640)
                return (image, PhotoReading.read(image), read.color, ThumbHash.base64(image))
            } catch let error as ImageError {
                throw JobFailure.permanent("the image cannot be decoded: \(error.message)", result: ResultFields.unreadableInput)
            }
        }
        try await context.record(color, percent: 5, step: "Measuring light, colour and composition")
        let scores = DimensionScores(reading)
        try await context.progress(8, step: "Describing the photo")
        let caption: String
        do {
            caption = try await provider.caption(VisionInput(image: image, encoded: bytes, mimeType: payload.input.contentType)).text
        } catch {
            throw ProviderFailure.job(error, provider: provider.name, logger: context.logger)
        }
        var reviews: [AdvisorReview] = []
        for (index, advisor) in advisors.enumerated() {
            try context.checkCancellation()
            let detail = try ContractJSON.text(AnalysisJob.Progress(currentAdvisor: index + 1, totalAdvisors: advisors.count, stepPhase: "analyzing"))
            try await context.progress(10 + 75 * index / advisors.count, step: "Conjuring \(advisor.name)", detail: detail)
            var review = AdvisorReview(advisor: advisor, scores: scores)
            do {
                if let prose = try await provider.critique(CritiqueRequest(review: review, caption: caption)) { review.adopt(prose) }
            } catch {
                context.logger.warning("the model's critique was not used", metadata: ["advisor": "\(advisor.id)", "error": "\(error)"])
                review.proseBy += " (\(provider.name) failed: \(error.description.prefix(160)))"
            }
            reviews.append(review)
        }
        try await context.progress(88, step: "Writing the report",
                                   detail: try ContractJSON.text(AnalysisJob.Progress(currentAdvisor: advisors.count, totalAdvisors: advisors.count,
                                                                                      stepPhase: "finalizing")))
        let report = AnalysisReport(reviews: reviews, reading: reading)
        let html = try report.html(thumbnail: image, caption: caption)
        let resultKey = BlobKey.jobResult(context.job.id, fileExtension: "html")
        _ = try await blobs.put(Data(html.utf8), at: resultKey)
        return try .encode(AnalysisJob.Result(
            resultBlob: resultKey.path, grade: report.grade, overall: report.overall, caption: caption,
            advisors: reviews.map { review in
                AnalysisJob.AdvisorResult(id: review.advisor.id, name: review.advisor.name, grade: review.grade, overall: review.overall,
                                          scores: Dictionary(uniqueKeysWithValues: Dimension.allCases.map { ($0.rawValue, review.scores[$0].rounded) }),
                                          proseBy: review.proseBy)
            }, thumbhash: thumbhash))
    }
}
