import AtelierEmbeddings
import AtelierImaging
import AtelierQueue
import AtelierSearch
import AtelierStorage
import AtelierVision
import AtelierWorker
import Foundation

/// `index`: a text (or an uploaded image's caption — given, or written by the configured vision
/// provider) → MiniLM embedding → upsert into the vector store under the job's owner. Indexing the same `source_key` again replaces the row.
/// The result names the row and what was embedded: `{id, collection, source_key, source_kind,
/// text, caption?, image_path?, embedding_dim}`.
public struct IndexHandler: JobHandler {
    public let kind = "index"
    let encoder: MiniLMEncoder
    let blobs: any BlobStore
    let captioner: any VisionProvider
    let limits: ImageLimits

    public init(encoder: MiniLMEncoder, blobs: any BlobStore, captioner: any VisionProvider, limits: ImageLimits = ImageLimits()) {
        (self.encoder, self.blobs, self.captioner, self.limits) = (encoder, blobs, captioner, limits)
    }

    /// The caption of the job's uploaded image, from the vision provider.
    func caption(_ input: [String: Any]?, _ context: JobContext) async throws -> String {
        guard let blob = input?["blob"] as? String else { throw JobFailure.permanent("the image to caption is missing") }
        try await context.progress(10, step: "captioning")
        let bytes = try await JobInput.read(blob, from: blobs)
        let limits = self.limits
        let image: PixelBuffer = try await context.offload { _ in
            do {
                return try ImageCodec.decode(bytes, limits: limits, minimumLongSide: ImageMeasurements.analysisSize)
                    .cappingLongSide(ImageMeasurements.analysisSize)
            } catch let error as ImageError {
                throw JobFailure.permanent("the image cannot be decoded: \(error.message)")
            }
        }
        do {
            return try await captioner.caption(VisionInput(image: image, encoded: bytes,
                                                           mimeType: input?["content_type"] as? String ?? "image/jpeg")).text
        } catch {
            throw JobFailure.transient("the \(captioner.name) provider failed: \(error.description)")
        }
    }

    public var timeout: Duration? { .seconds(60) }

    struct Result: Encodable {
        var id: UUID
        var collection: String
        var source_key: String
        var source_kind: String
        var text: String
        var caption: String?
        var image_path: String?
        var embedding_dim: Int
    }

    /// A document's current question and answer (the last edit wins whatever order jobs run in);
    /// a deleted document stores nothing.
    func indexDocument(_ id: UUID, _ context: JobContext) async throws -> JobResult {
        let documents = DocumentStore(client: context.database, logger: context.logger)
        guard let document = try await documents.find(id: id, owner: context.job.owner) else {
            return try .encode(["document_id": id.uuidString.lowercased(), "skipped": "the document no longer exists"])
        }
        try await context.progress(20, step: "embedding")
        let text = document.text
        let vector = try await context.offload { _ in encoder.embed(text) }
        try context.checkCancellation()
        try await context.progress(70, step: "storing")
        let store = VectorStore(client: context.database, logger: context.logger)
        let metadata = "{\"document_id\": \"\(id.uuidString.lowercased())\"}"
        guard let row = try await store.upsert(NewIndexedItem(
            owner: context.job.owner, collection: document.collection, sourceKind: "text", sourceKey: document.sourceKey,
            jobID: context.job.id, text: text, metadata: metadata, embedding: vector), onlyIfDocument: id) else {
            return try .encode(["document_id": id.uuidString.lowercased(), "skipped": "the document was deleted meanwhile"])
        }
        return try .encode(Result(id: row, collection: document.collection, source_key: document.sourceKey, source_kind: "text",
                                  text: text, caption: nil, image_path: nil, embedding_dim: vector.count))
    }

    public func run(_ context: JobContext) async throws -> JobResult {
        guard let options = try? JSONSerialization.jsonObject(with: Data(context.job.payload.utf8)) as? [String: Any] else {
            throw JobFailure.permanent("the index job's payload is not a JSON object")
        }
        let input = options["input"] as? [String: Any]
        var request: IndexRequest
        do {
            request = try IndexRequest.parse(options.filter { $0.key != "input" }, hasImage: input != nil)
        } catch {
            throw JobFailure.permanent(error.message)
        }
        if let documentID = request.documentID { return try await indexDocument(documentID, context) }
        if request.needsCaption { request.text = try await caption(input, context) }
        try await context.progress(20, step: "embedding")
        let text = request.text
        let vector = try await context.offload { _ in encoder.embed(text) }
        try context.checkCancellation()
        try await context.progress(70, step: "storing")
        let imagePath = request.imagePath ?? (input?["blob"] as? String).map { "source/" + ($0.split(separator: "/").last.map(String.init) ?? $0) }
        let sourceKey = request.sourceKey ?? (request.isImage ? "job:\(context.job.id):\(imagePath ?? "image")" : "job:\(context.job.id)")
        let store = VectorStore(client: context.database, logger: context.logger)
        let id = try await store.upsert(NewIndexedItem(
            owner: context.job.owner, collection: request.collection, sourceKind: request.isImage ? "image" : "text",
            sourceKey: sourceKey, jobID: context.job.id, imagePath: request.isImage ? imagePath : nil, text: request.text,
            metadata: request.metadata, embedding: vector))
        return try .encode(Result(id: id, collection: request.collection, source_key: sourceKey,
                                  source_kind: request.isImage ? "image" : "text", text: request.text,
                                  caption: request.isImage ? request.text : nil, image_path: request.isImage ? imagePath : nil,
                                  embedding_dim: vector.count))
    }
}
