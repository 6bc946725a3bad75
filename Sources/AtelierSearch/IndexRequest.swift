import Foundation

/// An `index` job's options, checked the same way by the API (before storing) and the worker:
/// - text input: `text` (1…8000 characters) — a document, a knowledge point, a caption;
/// - image input: the uploaded image, optionally its `caption` (1…2000 characters; without
///   one the worker captions the image with the configured vision provider), and optionally
///   `image_path`;
/// - another job's image: `from_job` names one of the caller's jobs that has an uploaded image
///   (an analysis, a Mondrian upload); the worker indexes that image under that job's id and
///   reuses the caption the job's result carries (else the provider writes one);
/// - `collection` (default `default`; letters, digits, `_ . -`, ≤ 64), `source_key` (what is
///   indexed: indexing the same key again replaces the row; ≤ 200 printable characters; by
///   default the job's own id), `metadata` (a JSON object ≤ 8 KB).
public struct IndexRequest: Sendable, Equatable {
    /// What is embedded; empty for an image whose caption the worker writes.
    public var text: String
    public var isImage: Bool
    /// An image sent without a caption: the worker captions it first.
    public var needsCaption: Bool { isImage && text.isEmpty }
    public var imagePath: String?
    public var collection: String
    public var sourceKey: String?
    public var metadata: String
    /// Set by the documents API: the text is the document's current question and answer, read
    /// when the job runs.
    public var documentID: UUID?
    /// The job whose uploaded image is indexed (`from_job`).
    public var fromJob: UUID?

    public struct Invalid: Error, Sendable, Equatable {
        public var field: String
        public var message: String
    }

    public static let maxTextLength = 8000
    public static let maxCaptionLength = 2000

    /// A collection name: 1–64 ASCII letters, digits, `_`, `.` or `-` (shared by documents).
    public static func isCollectionName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "_.-".unicodeScalars.contains($0) }
    }

    /// A `metadata` value as sorted JSON text: nil when absent; a JSON object of at most 8 KB, or
    /// ``Invalid`` naming `metadata` (shared by documents).
    public static func metadataJSON(_ value: Any?) throws(Invalid) -> String? {
        guard let value, !(value is NSNull) else { return nil }
        guard value is [String: Any], let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]),
              data.count <= 8192 else {
            throw Invalid(field: "metadata", message: "metadata must be a JSON object of at most 8 KB")
        }
        return String(decoding: data, as: UTF8.self)
    }

    public static func parse(_ options: [String: Any], hasImage: Bool) throws(Invalid) -> IndexRequest {
        func string(_ key: String) throws(Invalid) -> String? {
            guard let value = options[key], !(value is NSNull) else { return nil }
            guard let text = value as? String else { throw Invalid(field: key, message: "\(key) must be a string") }
            return text
        }
        if let document = try string("document_id") {
            guard let id = UUID(uuidString: document), !hasImage, options.keys.allSatisfy({ $0 == "document_id" }) else {
                throw Invalid(field: "document_id", message: "document_id must be a document's id, alone")
            }
            return IndexRequest(text: "", isImage: false, imagePath: nil, collection: "", sourceKey: nil, metadata: "{}", documentID: id)
        }
        var fromJob: UUID?
        if let source = try string("from_job") {
            guard let id = UUID(uuidString: source) else { throw Invalid(field: "from_job", message: "from_job must be a job id") }
            guard !hasImage else { throw Invalid(field: "from_job", message: "send an image or from_job, not both") }
            fromJob = id
        }
        let hasImage = hasImage || fromJob != nil
        let text: String
        if hasImage {
            let caption = try string("caption")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard caption.count <= maxCaptionLength else {
                throw Invalid(field: "caption", message: "caption is longer than \(maxCaptionLength) characters")
            }
            if options["text"] != nil { throw Invalid(field: "text", message: "send either an image with a caption or a text, not both") }
            text = caption
        } else {
            guard let body = try string("text")?.trimmingCharacters(in: .whitespacesAndNewlines), !body.isEmpty else {
                throw Invalid(field: "text", message: "text is required (or upload an image with a caption)")
            }
            guard body.count <= maxTextLength else { throw Invalid(field: "text", message: "text is longer than \(maxTextLength) characters") }
            text = body
        }
        let collection = try string("collection") ?? "default"
        guard isCollectionName(collection) else {
            throw Invalid(field: "collection", message: "collection must be 1–64 letters, digits, '_', '.' or '-'")
        }
        let sourceKey = try string("source_key")
        if let sourceKey {
            guard (1...200).contains(sourceKey.count), !sourceKey.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw Invalid(field: "source_key", message: "source_key must be 1–200 printable characters")
            }
        }
        let imagePath = try string("image_path")
        if let imagePath {
            guard hasImage else { throw Invalid(field: "image_path", message: "image_path names an uploaded image: send the image") }
            guard (1...200).contains(imagePath.count), !imagePath.hasPrefix("/"), !imagePath.contains(".."), !imagePath.contains("\\"),
                  !imagePath.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw Invalid(field: "image_path", message: "image_path must be a relative name like source/photo.jpg (no '..')")
            }
        }
        let metadata = try metadataJSON(options["metadata"]) ?? "{}"
        return IndexRequest(text: text, isImage: hasImage, imagePath: imagePath, collection: collection,
                            sourceKey: sourceKey, metadata: metadata, documentID: nil, fromJob: fromJob)
    }
}
