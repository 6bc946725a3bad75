import AtelierImaging
import AtelierJobs
import AtelierStorage
import AtelierWorker
import Foundation

/// `variant` (``AtelierJobs/VariantJob``): renders one photo variant a signed `/variants/…` URL
/// asked for and stores it beside its source, so the API process never decodes an untrusted
/// photo. A source that cannot be rendered fails for good, with the answer its URL gives from
/// then on as the job's result: 413 for a photo over the pixel limits, 422 for one that does not
/// decode, 404 for one purged meanwhile. A store that cannot be reached snoozes the job as for
/// any other kind.
package struct VariantHandler: JobHandler {
    package let kind = VariantJob.kind
    let blobs: any BlobStore
    let limits: ImageLimits

    package init(blobs: any BlobStore, limits: ImageLimits = ImageLimits()) {
        (self.blobs, self.limits) = (blobs, limits)
    }

    /// A 12 MP photo takes tens of milliseconds; a slot is never held long.
    package var timeout: Duration? { .seconds(30) }

    package func run(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: VariantJob.Payload.self)
        guard let source = try? BlobKey(payload.source), let target = try? BlobKey(payload.target),
              let fit = VariantFit(rawValue: payload.fit), let format = VariantFormat(rawValue: payload.format),
              (1...100).contains(payload.quality) else {
            throw JobFailure.permanent("the variant job's payload is not valid")
        }
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try await blobs.read(source))
        } catch .notFound {
            throw Self.failure(VariantJob.Failure(status: 404, message: "this photo no longer exists"))
        }
        let request = VariantRequest(width: payload.width, height: payload.height, fit: fit, format: format, quality: payload.quality)
        let limits = self.limits
        let rendered = try await context.offload { _ in
            Result { () throws(ImageError) in try PhotoVariant.render(bytes, request, limits: limits) }
        }
        switch rendered {
        case .success(let variant):
            let info = try await blobs.put(Data(variant), at: target)
            return try .encode(VariantJob.Result(bytes: info.size, contentType: info.contentType))
        case .failure(.tooLarge(let message)):
            throw Self.failure(VariantJob.Failure(status: 413, message: message))
        case .failure(let error):
            throw Self.failure(VariantJob.Failure(status: 422, message: "this photo cannot be read: " + error.message))
        }
    }

    static func failure(_ failure: VariantJob.Failure) -> JobFailure {
        let result = (try? JSONEncoder().encode(failure)).map { String(decoding: $0, as: UTF8.self) }
        return .permanent(failure.message, result: result)
    }
}
