import AtelierImaging
import AtelierJobs
import AtelierStorage
import AtelierWorker
import Foundation

/// `upload`: keeps an uploaded image for later work without analysing it (Mondrian's
/// `auto_analyze=false`): the stored image is read back and decoded (small: its placeholder is
/// all that is kept), so a job that succeeds names an image that is really there and readable;
/// the result is `{format, width, height, bytes, thumbhash}`. The image stays until the job is
/// purged.
package struct UploadHandler: JobHandler {
    package let kind = "upload"
    let blobs: any BlobStore
    let limits: ImageLimits

    package init(blobs: any BlobStore, limits: ImageLimits = ImageLimits()) {
        (self.blobs, self.limits) = (blobs, limits)
    }

    package func run(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: UploadJob.Payload.self)
        let bytes = try await JobInput.read(payload.input.blob, from: blobs)
        let limits = self.limits
        let (info, thumbhash): (ImageInfo, String) = try await context.offload { _ in
            do {
                return (try ImageCodec.probe(bytes, limits: limits), try ThumbHash.base64(ofPhoto: bytes, limits: limits))
            } catch let error as ImageError {
                throw JobFailure.permanent("the stored image is not readable: \(error.message)", result: ResultFields.unreadableInput)
            }
        }
        return try .encode(UploadJob.Result(format: info.format.rawValue, width: info.width, height: info.height, bytes: bytes.count,
                                            thumbhash: thumbhash))
    }
}
