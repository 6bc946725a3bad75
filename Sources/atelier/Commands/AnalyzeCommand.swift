import ArgumentParser
import AtelierImaging
import AtelierVision
import Foundation

/// `atelier analyze PHOTO --out report.html`: the analysis job's report, made locally (no
/// database, local provider) — for trying advisors on your own photos and for the docs.
struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Write the HTML analysis report of a photo locally (no database; the local caption provider).")

    @Option(help: "An advisor id, all, or ids separated by commas.") var advisor = "all"
    @Option(help: "Where to write the report.") var out: String
    @Argument(help: "The photo (JPEG, PNG, HEIC or WebP).") var photo: String

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: photo) else { throw ValidationError("cannot read \(photo)") }
        let ids = advisor == "all" ? Advisor.all.map(\.id) : advisor.split(separator: ",").map { String($0) }
        let advisors = try ids.map { id -> Advisor in
            guard let found = Advisor.named(id) else {
                throw ValidationError("unknown advisor '\(id)'; one of \(Advisor.all.map(\.id).joined(separator: ", "))")
            }
            return found
        }
        do {
            let started = ContinuousClock.now
            let image = try ImageCodec.decode([UInt8](data), minimumLongSide: 640).cappingLongSide(640)
            let reading = PhotoReading.read(image)
            let scores = DimensionScores(reading)
            let report = AnalysisReport(reviews: advisors.map { AdvisorReview(advisor: $0, scores: scores) }, reading: reading)
            let caption = try await LocalVisionProvider().caption(VisionInput(image: image, encoded: [UInt8](data), mimeType: "image/jpeg"))
            let html = try report.html(thumbnail: image, caption: caption.text)
            guard FileManager.default.createFile(atPath: out, contents: Data(html.utf8)) else { throw ValidationError("cannot write \(out)") }
            say("grade \(report.grade) (\(report.overall)/10) from \(advisors.count) advisor(s) in \(ContinuousClock.now - started) → \(out)")
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error)
        }
    }
}
