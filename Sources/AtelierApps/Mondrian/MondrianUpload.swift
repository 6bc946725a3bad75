import AtelierAPI
import AtelierJobs
import AtelierQueue
import AtelierStorage
import Foundation

/// A job as Mondrian's facade sees it: one with an uploaded image — an `analysis`, or an
/// `upload` kept without analysis — and what its payload says about that image.
struct MondrianUpload {
    var job: Job
    /// The stem of the image's file name (the payload's `source_name`, made safe again whoever
    /// set it; `photo` for jobs made through `/v1/jobs` without one).
    var stem: String
    var fileExtension: String
    var blob: BlobKey
    /// The advisors an analysis runs (empty for an upload kept without analysis).
    var advisors: [String]

    /// Nil when the job has no uploaded image. An analysis's payload names its advisors; any
    /// other kind's is read as an upload's (its `input`, and `source_name` if it has one).
    init?(_ job: Job) {
        let input: BlobInput, sourceName: String?
        if job.kind == AnalysisJob.kind {
            guard let payload = try? ContractJSON.decode(AnalysisJob.Payload.self, from: job.payload) else { return nil }
            (input, sourceName, advisors) = (payload.input, payload.sourceName, payload.advisors ?? [])
        } else {
            guard let payload = try? ContractJSON.decode(UploadJob.Payload.self, from: job.payload) else { return nil }
            (input, sourceName, advisors) = (payload.input, payload.sourceName, [])
        }
        guard let blob = try? BlobKey(input.blob) else { return nil }
        self.job = job
        self.blob = blob
        self.stem = MondrianFilename.stem(fromClientName: sourceName)
        self.fileExtension = input.blob.split(separator: ".").last.map(String.init) ?? "jpg"
    }

    func filename(_ signer: URLSigner) -> String {
        MondrianFilename(stem: stem, jobID: job.id, fileExtension: fileExtension).text(signedBy: signer)
    }

    /// The `image_path` the app sends to `/index` and gets back from `/search`.
    func imagePath(_ signer: URLSigner) -> String { "source/" + filename(signer) }
}
