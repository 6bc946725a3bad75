import AtelierJobs
import AtelierQueue
import AtelierStorage
import AtelierWorker
import Foundation

/// `echo`: stores the job's input image, unchanged, as its result. A diagnostic kind that
/// exercises the whole blob path — upload, input blob, worker, result blob, pre-signed URL —
/// without any image processing.
struct EchoHandler: JobHandler {
    let kind = EchoJob.kind
    let blobs: any BlobStore
    let log: ExecutionLog?

    func run(_ context: JobContext) async throws -> JobResult {
        log?.record(context.job)
        let payload = try context.payload(as: EchoJob.Payload.self)
        let input: BlobKey
        do {
            input = try BlobKey(payload.input.blob)
        } catch {
            throw JobFailure.permanent("the input blob key is not valid: \(error)")
        }
        let data: Data
        do {
            data = try await blobs.read(input)
        } catch .notFound {
            throw JobFailure.permanent("the input image is gone (\(input))")
        }
        try context.checkCancellation()
        let output = BlobKey.jobResult(context.job.id, fileExtension: input.fileExtension.isEmpty ? "bin" : input.fileExtension)
        let info = try await blobs.put(data, at: output)
        return try .encode(EchoJob.Result(resultBlob: output.path, bytes: info.size, contentType: info.contentType))
    }
}
