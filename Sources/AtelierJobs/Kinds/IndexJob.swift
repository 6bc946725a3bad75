import Foundation

/// `index`: something embedded and stored for search under the job's owner:
/// - a text: `text` (1…8000 characters) — a document, a knowledge point, a caption;
/// - an image: the uploaded image, optionally its `caption` (1…2000 characters; without one the
///   worker captions the image with the configured vision provider), optionally `image_path`;
/// - another job's image: `from_job` names one of the owner's jobs that has an uploaded image
///   (an analysis, a Mondrian upload); the worker indexes that image under that job's id and
///   reuses the caption the job's result carries (else the provider writes one);
/// - a document: `document_id` alone (the documents API's jobs): its current question and
///   answer, read when the job runs.
///
/// Also `collection` (default `default`; letters, digits, `_ . -`, at most 64), `source_key`
/// (what is indexed: indexing the same key again replaces the row; at most 200 printable
/// characters; by default the job's own id) and `metadata` (a JSON object of at most 8 KB).
package struct IndexJob: JobContract {
    package static let kind = "index"
    package static let image = ImageRule.optional

    package init() {}

    /// The options as the client sent them (strings untrimmed); ``request()`` checks them.
    package struct Payload: Codable, Sendable, Equatable {
        package var text: String?
        package var caption: String?
        package var collection: String?
        package var sourceKey: String?
        package var imagePath: String?
        package var metadata: JSONValue?
        package var documentID: String?
        package var fromJob: String?
        package var input: BlobInput?

        package init(text: String? = nil, caption: String? = nil, collection: String? = nil, sourceKey: String? = nil,
                    imagePath: String? = nil, metadata: JSONValue? = nil, documentID: String? = nil, fromJob: String? = nil,
                    input: BlobInput? = nil) {
            (self.text, self.caption, self.collection, self.sourceKey, self.imagePath) = (text, caption, collection, sourceKey, imagePath)
            (self.metadata, self.documentID, self.fromJob, self.input) = (metadata, documentID, fromJob, input)
        }

        /// A document's current question and answer (the documents API after each write).
        package static func document(_ id: UUID) -> Payload {
            Payload(documentID: id.uuidString.lowercased())
        }

        /// The uploaded image of the job `upload` under the name `imagePath` (Mondrian's `/index`
        /// and `auto_index`).
        package static func image(ofJob upload: UUID, imagePath: String) -> Payload {
            Payload(imagePath: imagePath, fromJob: upload.uuidString.lowercased())
        }

        enum CodingKeys: String, CodingKey {
            case text, caption, collection, metadata, input
            case sourceKey = "source_key", imagePath = "image_path", documentID = "document_id", fromJob = "from_job"
        }

        /// What to index, checked as the API checked it.
        package func request() throws(JobOptionsError) -> Request {
            try IndexJob.resolve(options, hasImage: input != nil)
        }

        /// The fields as options (the form ``IndexJob/resolve(_:hasImage:)`` reads).
        var options: JSONObject {
            var options: JSONObject = [:]
            let strings: [(String, String?)] = [("text", text), ("caption", caption), ("collection", collection), ("source_key", sourceKey),
                                                ("image_path", imagePath), ("document_id", documentID), ("from_job", fromJob)]
            for case let (key, value?) in strings { options[key] = .string(value) }
            if let metadata { options["metadata"] = metadata }
            return options
        }
    }

    /// An index job's options, checked and resolved: what the handler embeds and stores.
    package struct Request: Sendable, Equatable {
        /// What is embedded (trimmed); empty for an image whose caption the worker writes.
        package var text: String
        package var isImage: Bool
        /// An image sent without a caption: the worker captions it first.
        package var needsCaption: Bool { isImage && text.isEmpty }
        package var imagePath: String?
        package var collection: String
        package var sourceKey: String?
        /// The metadata as sorted JSON text (`{}` when none was sent).
        package var metadata: String
        /// Set by the documents API: the text is the document's, read when the job runs.
        package var documentID: UUID?
        /// The job whose uploaded image is indexed (`from_job`).
        package var fromJob: UUID?
    }

    /// What the handler stored: the row, and what was embedded.
    package struct Result: Codable, Sendable, Equatable {
        package var id: String
        /// The job the indexed item belongs to: this one, or the `from_job` whose image it is.
        package var jobID: String
        package var collection: String
        package var sourceKey: String
        /// `text` or `image`.
        package var sourceKind: String
        package var text: String
        package var caption: String?
        /// Where an image's caption came from: `request`, `job` (the `from_job`'s result) or `provider`.
        package var captionFrom: String?
        package var imagePath: String?
        package var embeddingDim: Int
        /// An image's ThumbHash placeholder (base64), which search hits carry; nil for text.
        package var thumbhash: String?

        package init(id: String, jobID: String, collection: String, sourceKey: String, sourceKind: String, text: String,
                    caption: String?, captionFrom: String?, imagePath: String?, embeddingDim: Int, thumbhash: String? = nil) {
            (self.id, self.jobID, self.collection, self.sourceKey, self.sourceKind, self.text) = (id, jobID, collection, sourceKey, sourceKind, text)
            (self.caption, self.captionFrom, self.imagePath, self.embeddingDim, self.thumbhash) = (caption, captionFrom, imagePath, embeddingDim, thumbhash)
        }

        enum CodingKeys: String, CodingKey {
            case id, collection, text, caption, thumbhash
            case jobID = "job_id", sourceKey = "source_key", sourceKind = "source_kind", captionFrom = "caption_from"
            case imagePath = "image_path", embeddingDim = "embedding_dim"
        }
    }

    /// A document's job that found nothing to store: the document was deleted before it ran.
    package struct Skipped: Codable, Sendable, Equatable {
        package var documentID: String
        package var skipped: String

        package init(documentID: String, skipped: String) {
            (self.documentID, self.skipped) = (documentID, skipped)
        }

        enum CodingKeys: String, CodingKey {
            case skipped, documentID = "document_id"
        }
    }

    package static let maxTextLength = 8000
    package static let maxCaptionLength = 2000

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        _ = try Self.resolve(options, hasImage: input != nil)
        return Payload(text: options["text"]?.string, caption: options["caption"]?.string, collection: options["collection"]?.string,
                       sourceKey: options["source_key"]?.string, imagePath: options["image_path"]?.string,
                       metadata: options["metadata"].flatMap { $0.isNull ? nil : $0 }, documentID: options["document_id"]?.string,
                       fromJob: options["from_job"]?.string, input: input)
    }

    /// Every option an index job reads: the documented ones, and those the API itself sets on the
    /// jobs it makes (`image_path`, `document_id`, `from_job`).
    static let optionNames: Set<String> = ["text", "caption", "collection", "source_key", "metadata", "image_path", "document_id", "from_job"]

    /// A collection name: 1–64 ASCII letters, digits, `_`, `.` or `-` (documents use it too).
    package static func isCollectionName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "_.-".unicodeScalars.contains($0) }
    }

    /// A `metadata` value as sorted JSON text: nil when absent or null; a JSON object of at most
    /// 8 KB, or an error naming `metadata` (documents use it too).
    package static func metadataJSON(_ value: JSONValue?) throws(JobOptionsError) -> String? {
        guard let value, !value.isNull else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard value.object != nil, let data = try? encoder.encode(value), data.count <= 8192 else {
            throw JobOptionsError(field: "metadata", message: "metadata must be a JSON object of at most 8 KB")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The options checked, in the order the fields are explained above.
    static func resolve(_ options: JSONObject, hasImage: Bool) throws(JobOptionsError) -> Request {
        // Refused, not ignored: a misspelt `source_key` must not index under no key at all.
        for name in options.keys.sorted() where !optionNames.contains(name) {
            throw JobOptionsError(field: name, message: "index takes no option '\(name)': send text, caption, collection, source_key and metadata")
        }
        func string(_ key: String) throws(JobOptionsError) -> String? {
            guard let value = options[key], !value.isNull else { return nil }
            guard let text = value.string else { throw JobOptionsError(field: key, message: "\(key) must be a string") }
            return text
        }
        if let document = try string("document_id") {
            guard let id = UUID(uuidString: document), !hasImage, options.keys.allSatisfy({ $0 == "document_id" }) else {
                throw JobOptionsError(field: "document_id", message: "document_id must be a document's id, alone")
            }
            return Request(text: "", isImage: false, imagePath: nil, collection: "", sourceKey: nil, metadata: "{}", documentID: id)
        }
        var fromJob: UUID?
        if let source = try string("from_job") {
            guard let id = UUID(uuidString: source) else { throw JobOptionsError(field: "from_job", message: "from_job must be a job id") }
            guard !hasImage else { throw JobOptionsError(field: "from_job", message: "send an image or from_job, not both") }
            fromJob = id
        }
        let hasImage = hasImage || fromJob != nil
        let text: String
        if hasImage {
            let caption = try string("caption")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard caption.count <= maxCaptionLength else {
                throw JobOptionsError(field: "caption", message: "caption is longer than \(maxCaptionLength) characters")
            }
            if options["text"] != nil {
                throw JobOptionsError(field: "text", message: "send either an image with a caption or a text, not both")
            }
            text = caption
        } else {
            guard let body = try string("text")?.trimmingCharacters(in: .whitespacesAndNewlines), !body.isEmpty else {
                throw JobOptionsError(field: "text", message: "text is required (or upload an image with a caption)")
            }
            guard body.count <= maxTextLength else {
                throw JobOptionsError(field: "text", message: "text is longer than \(maxTextLength) characters")
            }
            text = body
        }
        let collection = try string("collection") ?? "default"
        guard isCollectionName(collection) else {
            throw JobOptionsError(field: "collection", message: "collection must be 1–64 letters, digits, '_', '.' or '-'")
        }
        let sourceKey = try string("source_key")
        if let sourceKey {
            guard (1...200).contains(sourceKey.count), !sourceKey.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw JobOptionsError(field: "source_key", message: "source_key must be 1–200 printable characters")
            }
        }
        let imagePath = try string("image_path")
        if let imagePath {
            guard hasImage else {
                throw JobOptionsError(field: "image_path", message: "image_path names an uploaded image: send the image")
            }
            guard (1...200).contains(imagePath.count), !imagePath.hasPrefix("/"), !imagePath.contains(".."), !imagePath.contains("\\"),
                  !imagePath.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw JobOptionsError(field: "image_path", message: "image_path must be a relative name like source/photo.jpg (no '..')")
            }
        }
        let metadata = try metadataJSON(options["metadata"]) ?? "{}"
        return Request(text: text, isImage: hasImage, imagePath: imagePath, collection: collection,
                       sourceKey: sourceKey, metadata: metadata, documentID: nil, fromJob: fromJob)
    }
}
