import AtelierEmbeddings
import AtelierImaging
import AtelierJobs
import AtelierQueue
import AtelierSearch
import AtelierStorage
import AtelierVision
import AtelierWorker
import Foundation

/// `index`: a text (or an image's caption — given, carried by the result of the job named by
/// `from_job`, or written by the configured vision provider) → MiniLM embedding → upsert into
/// the vector store under the job's owner. Indexing the same `source_key` again replaces the row.
/// The result names the row and what was embedded: `{id, job_id, collection, source_key,
/// source_kind, text, caption?, caption_from?, image_path?, embedding_dim}`.
package struct IndexHandler: JobHandler {
    package let kind = "index"
    let encoder: MiniLMEncoder
    let blobs: any BlobStore
    let captioner: any VisionProvider
    let limits: ImageLimits

    package init(encoder: MiniLMEncoder, blobs: any BlobStore, captioner: any VisionProvider, limits: ImageLimits = ImageLimits()) {
        (self.encoder, self.blobs, self.captioner, self.limits) = (encoder, blobs, captioner, limits)
    }

    /// The caption of the job's uploaded image (`bytes`, as `input` names it), from the vision provider.
    func caption(_ input: BlobInput, _ bytes: [UInt8], _ context: JobContext) async throws -> String {
        try await context.progress(10, step: "captioning")
        let limits = self.limits
        let (image, color): (PixelBuffer, ColorReport) = try await context.offload { _ in
            do {
                let read = try ImageCodec.decodeReporting(bytes, limits: limits, minimumLongSide: ImageMeasurements.analysisSize)
                return (read.image.cappingLongSide(ImageMeasurements.analysisSize), read.color)
            } catch let error as ImageError {
                throw JobFailure.permanent("the image cannot be decoded: \(error.message)", result: ResultFields.unreadableInput)
            }
        }
        try await context.record(color, percent: 10, step: "captioning")
        do {
            return try await captioner.caption(VisionInput(image: image, encoded: bytes, mimeType: input.contentType)).text
        } catch {
            throw ProviderFailure.job(error, provider: captioner.name, logger: context.logger)
        }
    }

    package var timeout: Duration? { .seconds(60) }

    /// The uploaded image of the job `from_job` names (one of this owner's), and the caption its
    /// result carries, if any.
    func sourceImage(of id: UUID, _ context: JobContext) async throws -> (input: BlobInput, caption: String?) {
        guard let job = try await context.ownersJob(id) else {
            throw JobFailure.permanent("from_job \(id.uuidString.lowercased()) is not one of your jobs (or was purged)")
        }
        guard let input = BlobInput.of(payload: job.payload) else {
            throw JobFailure.permanent("job \(id.uuidString.lowercased()) has no uploaded image to index")
        }
        let caption = ResultFields.of(result: job.result)?.caption?.trimmingCharacters(in: .whitespacesAndNewlines)
        return (input, caption?.isEmpty == false ? caption : nil)
    }

    /// A document's current question and answer (the last edit wins whatever order jobs run in);
    /// a deleted document stores nothing.
    func indexDocument(_ id: UUID, _ context: JobContext) async throws -> JobResult {
        let documents = DocumentStore(database: context.database, logger: context.logger)
        guard let document = try await documents.find(id: id, owner: context.job.owner) else {
            return try .encode(IndexJob.Skipped(documentID: id.lowercased, skipped: "the document no longer exists"))
        }
        try await context.progress(20, step: "embedding")
        let text = document.text
        let vector = try await context.offload { _ in encoder.embed(text) }
        try context.checkCancellation()
        try await context.progress(70, step: "storing")
        let store = VectorStore(database: context.database, logger: context.logger)
        let metadata = "{\"document_id\": \"\(id.uuidString.lowercased())\"}"
        guard let row = try await store.upsert(NewIndexedItem(
            owner: context.job.owner, collection: document.collection, sourceKind: "text", sourceKey: document.sourceKey,
            jobID: context.job.id, text: text, metadata: metadata, embedding: vector), onlyIfDocument: id) else {
            return try .encode(IndexJob.Skipped(documentID: id.lowercased, skipped: "the document was deleted meanwhile"))
        }
        return try .encode(IndexJob.Result(id: row.lowercased, jobID: context.job.id.lowercased, collection: document.collection,
                                           sourceKey: document.sourceKey, sourceKind: "text", text: text, caption: nil, captionFrom: nil,
                                           imagePath: nil, embeddingDim: vector.count))
    }

    package func run(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: IndexJob.Payload.self)
        var input = payload.input
        var request = try payload.request()
        if let documentID = request.documentID { return try await indexDocument(documentID, context) }
        var owningJob = context.job.id
        var captionFrom = request.isImage && !request.text.isEmpty ? "request" : nil
        if let source = request.fromJob {
            let (sourceInput, sourceCaption) = try await sourceImage(of: source, context)
            (input, owningJob) = (sourceInput, source)
            if request.text.isEmpty, let sourceCaption { (request.text, captionFrom) = (sourceCaption, "job") }
        }
        // A photo this job brought itself gets its placeholder here (search hits carry it); a
        // `from_job`'s photo has one in that job's result already.
        let ownPhoto = request.isImage && owningJob == context.job.id
        var thumbhash: String?
        if request.needsCaption && input == nil { throw JobFailure.permanent("the image to caption is missing") }
        if let input, request.needsCaption || ownPhoto {
            let bytes = try await JobInput.read(input.blob, from: blobs)
            if request.needsCaption { (request.text, captionFrom) = (try await caption(input, bytes, context), "provider") }
            if ownPhoto {
                let limits = self.limits
                thumbhash = try await context.offload { _ in try? ThumbHash.base64(ofPhoto: bytes, limits: limits) }
            }
        }
        try await context.progress(20, step: "embedding")
        let text = request.text
        let vector = try await context.offload { _ in encoder.embed(text) }
        try context.checkCancellation()
        try await context.progress(70, step: "storing")
        let imagePath = request.imagePath ?? input.map { "source/" + ($0.blob.split(separator: "/").last.map(String.init) ?? $0.blob) }
        let sourceKey = request.sourceKey ?? (request.isImage ? "job:\(owningJob):\(imagePath ?? "image")" : "job:\(owningJob)")
        let store = VectorStore(database: context.database, logger: context.logger)
        let id = try await store.upsert(NewIndexedItem(
            owner: context.job.owner, collection: request.collection, sourceKind: request.isImage ? "image" : "text",
            sourceKey: sourceKey, jobID: owningJob, imagePath: request.isImage ? imagePath : nil, text: request.text,
            metadata: request.metadata, embedding: vector))
        return try .encode(IndexJob.Result(id: id.lowercased, jobID: owningJob.lowercased, collection: request.collection, sourceKey: sourceKey,
                                           sourceKind: request.isImage ? "image" : "text", text: request.text,
                                           caption: request.isImage ? request.text : nil, captionFrom: captionFrom,
                                           imagePath: request.isImage ? imagePath : nil, embeddingDim: vector.count,
                                           thumbhash: thumbhash))
    }
}

extension UUID {
    /// The id as the API writes ids: lower-case.
    var lowercased: String { uuidString.lowercased() }
}
