import AtelierAPI
import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird

/// Mondrian's `GET /image/source/<filename>`: the uploaded image, for the app's image views,
/// which send no token. The signed file name is the permission (``MondrianFilename``); any name
/// that is not one of ours — altered, guessed, traversing — is a 404 that says nothing more.
/// The image is served as stored (ETag, ranges, long private caching: a name never changes what
/// it names) until its job is purged. With an object store that hands out pre-signed URLs (s3),
/// the answer is a 302 to a fresh one instead, so the bytes come from the store.
struct MondrianSourceImageController: Sendable {
    let queue: JobQueue
    let blobs: any BlobStore
    let signer: URLSigner
    let links: DownloadLinks

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("image/source/:filename", use: image)
        router.head("image/source/:filename", use: image)
    }

    @Sendable func image(_ request: Request, context: APIRequestContext) async throws -> Response {
        let text = try context.parameters.require("filename")
        let missing = APIError.notFound("no image named '\(text.prefix(120))'")
        guard let name = MondrianFilename.parse(text, signer: signer) else { throw missing }
        let job: Job
        do {
            job = try await queue.job(id: name.jobID)
        } catch QueueError.jobNotFound {
            throw missing
        }
        guard let upload = MondrianUpload(job), upload.stem == name.stem, upload.fileExtension == name.fileExtension else { throw missing }
        if let url = links.direct(for: upload.blob) {
            guard try await blobs.info(upload.blob) != nil else { throw APIError.notFound("the image of this upload no longer exists") }
            return Response(status: .found, headers: [.location: url, .cacheControl: "no-store"])
        }
        return try await BlobResponse.serve(upload.blob, for: request, from: blobs,
                                            cacheControl: "private, max-age=86400", missing: "the image of this upload no longer exists")
    }
}
