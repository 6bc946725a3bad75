import AtelierJobs
import AtelierQueue
import AtelierStorage
import Foundation

/// What a search hit shows of its photo before the app downloads it: a signed thumbnail URL,
/// as job views carry (``VariantParameters/thumbnail``), and the photo's ThumbHash placeholder,
/// made by the worker that ran the photo's job and kept in that job's result. The jobs of all a
/// search's hits are read in one query; a hit whose job is gone has neither.
package struct HitPhoto: Sendable {
    package var thumbnailURL: String
    /// Nil until the photo's job has a result with one.
    package var thumbhash: String?

    /// The photos of the jobs `ids` names, by job id: the image each job was given (`input`).
    package static func lookup(jobs ids: [UUID], queue: JobQueue, signer: URLSigner, base: String,
                               now: Date = Date()) async throws -> [UUID: HitPhoto] {
        let jobs = try await queue.jobs(ids: Array(Set(ids)))
        var photos: [UUID: HitPhoto] = [:]
        for job in jobs {
            guard let input = BlobInput.of(payload: job.payload), let key = try? BlobKey(input.blob),
                  VariantsController.jobFolder(of: key) != nil else { continue }
            let url = base + signer.signedVariantPath(for: key, parameters: VariantParameters.thumbnail.canonical, now: now)
            photos[job.id] = HitPhoto(thumbnailURL: url, thumbhash: ResultFields.of(result: job.result)?.thumbhash)
        }
        return photos
    }
}
