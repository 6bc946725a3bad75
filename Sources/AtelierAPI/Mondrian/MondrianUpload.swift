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

    /// Nil when the job has no uploaded image.
    init?(_ job: Job) {
        guard let payload = try? JSONSerialization.jsonObject(with: Data(job.payload.utf8)) as? [String: Any],
              let input = payload["input"] as? [String: Any], let path = input["blob"] as? String,
              let blob = try? BlobKey(path) else { return nil }
        self.job = job
        self.blob = blob
        self.stem = MondrianFilename.stem(fromClientName: payload["source_name"] as? String)
        self.fileExtension = path.split(separator: ".").last.map(String.init) ?? "jpg"
        self.advisors = job.kind == "analysis" ? (payload["advisors"] as? [String] ?? []) : []
    }

    func filename(_ signer: URLSigner) -> String {
        MondrianFilename(stem: stem, jobID: job.id, fileExtension: fileExtension).text(signedBy: signer)
    }

    /// The `image_path` the app sends to `/index` and gets back from `/search`.
    func imagePath(_ signer: URLSigner) -> String { "source/" + filename(signer) }
}
