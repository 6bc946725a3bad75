import AtelierJobs
import AtelierQueue
import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// A create-job request, parsed and checked before anything is stored.
///
/// Two encodings:
/// - `multipart/form-data`: an `image` file part, `kind`, `options` (a JSON object), and any other
///   text field, which becomes an option (JSON objects and arrays are parsed: the Caricature app
///   sends `params` as JSON and `style_id` as text);
/// - `application/json`: `{"kind", "options", "image", "timeout_s", "unique"}` with the image in
///   base64 (a `data:` URI prefix is allowed).
///
/// `timeout_s` (a form field in multipart) bounds each attempt of the job, in seconds; `unique`
/// (a form field holding JSON in multipart), `{"key": "…", "period_s": 600}` with both optional,
/// makes the job unique (``JobIntake``).
package struct JobSubmission {
    package var kind: String?
    package var options: JSONObject = [:]
    package var image: [UInt8]?
    /// The image part's `filename` as the client sent it (multipart only; not trusted as a path).
    package var imageFilename: String?
    /// `timeout_s`: how long one attempt may run; nil leaves the kind's own timeout.
    package var timeout: Duration?
    /// The longest `timeout_s` the API accepts: a day.
    static let maxTimeoutSeconds = 86_400.0
    /// `unique`: present when the job is to be unique; its key nil until the intake hashes the input.
    package var unique: UniqueRequest?

    package struct UniqueRequest: Equatable {
        package var key: String?
        package var periodSeconds: Double
    }

    /// A submission a route makes on a client's behalf (the caption route, Mondrian's `/upload`).
    package init(kind: String? = nil, options: JSONObject = [:], image: [UInt8]? = nil) {
        (self.kind, self.options, self.image) = (kind, options, image)
    }

    static let maxOptionsBytes = 64 * 1024
    /// A form has an image and a handful of fields; more parts than this is not a client of ours.
    static let maxParts = 32
    /// Header lines per part (Content-Disposition, Content-Type, perhaps a few more).
    static let maxPartHeaders = 16

    /// Whether `contentType` is `multipart/form-data` (any parameters).
    package static func isMultipartForm(_ contentType: String?) -> Bool {
        contentType.flatMap(MediaType.init)?.type == "multipart/form-data"
    }

    package static func parse(contentType: String?, body: ByteBuffer) throws -> JobSubmission {
        guard let contentType, let media = MediaType(contentType) else {
            throw APIError.unsupportedMediaType("send multipart/form-data or application/json (Content-Type is missing)")
        }
        switch media.type {
        case "multipart/form-data":
            guard let boundary = media.parameters["boundary"], !boundary.isEmpty else {
                throw APIError.validation("multipart/form-data needs a boundary parameter in Content-Type", field: "Content-Type")
            }
            return try parseMultipart(body, boundary: boundary)
        case "application/json":
            return try parseJSON(body)
        default:
            throw APIError.unsupportedMediaType("Content-Type '\(media.type)' is not accepted; send multipart/form-data or application/json")
        }
    }

    private static func parseMultipart(_ body: ByteBuffer, boundary: String) throws -> JobSubmission {
        let parser = MultipartParser(boundary: boundary)
        var parts: [(headers: [String: String], body: ByteBuffer)] = []
        var headers: [String: String] = [:]
        var partBody = ByteBuffer()
        var open = false
        var refusal: APIError?
        var nonFileBytes = 0
        var partIsFile = false
        parser.onHeader = { name, value in
            if headers.count >= maxPartHeaders {
                refusal = refusal ?? APIError.validation("a multipart part has more than \(maxPartHeaders) header lines", field: "body")
            }
            let name = name.lowercased()
            headers[name] = value
            if name == "content-disposition" {
                // Decided once per part: the parser hands a body over in many small chunks.
                let disposition = ContentDisposition(value)
                partIsFile = disposition.parameters["filename"] != nil || ["image", "file"].contains(disposition.parameters["name"] ?? "")
            }
            open = true
        }
        parser.onBody = { chunk in
            // Parts other than the image are small fields: stop keeping a long one at once.
            if !partIsFile {
                nonFileBytes += chunk.readableBytes
                if nonFileBytes > maxOptionsBytes * 4 {
                    refusal = refusal ?? APIError.validation("the form's text fields are longer than \(maxOptionsBytes * 4 / 1024) KB in all", field: "body")
                    return
                }
            }
            if refusal == nil { partBody.writeBuffer(&chunk) }
            open = true
        }
        parser.onPartComplete = {
            if parts.count >= maxParts {
                refusal = refusal ?? APIError.validation("the form has more than \(maxParts) parts", field: "body")
            } else if refusal == nil {
                parts.append((headers, partBody))
            }
            headers = [:]
            partBody = ByteBuffer()
            partIsFile = false
            open = false
        }
        do {
            try parser.execute(body)
        } catch {
            throw APIError.validation("the multipart body is malformed", field: "body")
        }
        if let refusal { throw refusal }
        if open || parts.isEmpty {
            throw APIError.validation("the multipart body is truncated or empty (no closing boundary)", field: "body")
        }
        var submission = JobSubmission()
        for part in parts {
            guard let disposition = part.headers["content-disposition"].map(ContentDisposition.init),
                  let name = disposition.parameters["name"], !name.isEmpty else {
                throw APIError.validation("a multipart part has no Content-Disposition name", field: "body")
            }
            let bytes = part.body.getBytes(at: part.body.readerIndex, length: part.body.readableBytes) ?? []
            switch name {
            case "image", "file":
                guard submission.image == nil else { throw APIError.validation("send one image", field: name) }
                submission.image = bytes
                submission.imageFilename = disposition.parameters["filename"]
            case "kind":
                submission.kind = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            case "options":
                submission.options.merge(try jsonObject(bytes, field: "options")) { _, new in new }
            case "unique":
                guard bytes.count <= 1024 else { throw APIError.validation("unique is too long", field: "unique") }
                submission.unique = try unique(.object(try jsonObject(bytes, field: "unique")))
            case "timeout_s":
                let text = String(decoding: bytes.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                submission.timeout = try timeout(bytes.count <= 64 ? Double(text) : nil)
            default:
                guard bytes.count <= maxOptionsBytes else { throw APIError.validation("field '\(name)' is too long", field: name) }
                let text = String(decoding: bytes, as: UTF8.self)
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
                    guard let value = try? JSONValue.parse(Data(trimmed.utf8)) else {
                        throw APIError.validation("field '\(name)' is not valid JSON", field: name)
                    }
                    submission.options[name] = value
                } else {
                    submission.options[name] = .string(trimmed)
                }
            }
        }
        return submission
    }

    private static func parseJSON(_ body: ByteBuffer) throws -> JobSubmission {
        let bytes = body.getBytes(at: body.readerIndex, length: body.readableBytes) ?? []
        let object = try jsonObject(bytes, field: "body")
        var submission = JobSubmission()
        if let kind = object["kind"] {
            guard let kind = kind.string else { throw APIError.validation("kind must be a string", field: "kind") }
            submission.kind = kind
        }
        if let options = object["options"], !options.isNull {
            guard let options = options.object else {
                throw APIError.validation("options must be a JSON object", field: "options")
            }
            submission.options = options
        }
        if let image = object["image"], !image.isNull {
            guard var text = image.string else {
                throw APIError.validation("image must be a base64 string", field: "image")
            }
            if text.hasPrefix("data:"), let comma = text.firstIndex(of: ",") {
                text = String(text[text.index(after: comma)...])
            }
            guard let data = Data(base64Encoded: text, options: [.ignoreUnknownCharacters]), !data.isEmpty else {
                throw APIError.validation("image is not valid base64", field: "image")
            }
            submission.image = [UInt8](data)
        }
        if let timeout = object["timeout_s"], !timeout.isNull {
            submission.timeout = try self.timeout(timeout.double)
        }
        if let unique = object["unique"], !unique.isNull {
            submission.unique = try self.unique(unique)
        }
        for key in object.keys where !["kind", "options", "image", "timeout_s", "unique"].contains(key) {
            throw APIError.validation("unknown field '\(key)'; send kind, options, image, timeout_s and unique", field: key)
        }
        return submission
    }

    /// `unique` as given: `{"key": "…", "period_s": 600}`, both optional, nothing else.
    private static func unique(_ value: JSONValue) throws -> UniqueRequest {
        guard let object = value.object else {
            throw APIError.validation(#"unique must be an object like {"key": "…", "period_s": 600}"#, field: "unique")
        }
        for name in object.keys where !["key", "period_s"].contains(name) {
            throw APIError.validation("unknown field '\(name)' in unique; send key and period_s", field: "unique.\(name)")
        }
        var request = UniqueRequest(key: nil, periodSeconds: UniqueJob.defaultPeriod.seconds)
        if let key = object["key"], !key.isNull {
            guard let text = key.string, !text.isEmpty, text.unicodeScalars.count <= 255, !text.unicodeScalars.contains("\u{0}") else {
                throw APIError.validation("unique.key must be a string of 1–255 characters, without NUL", field: "unique.key")
            }
            request.key = text
        }
        if let period = object["period_s"], !period.isNull {
            let max = UniqueJob.maxPeriod.seconds
            guard let seconds = period.double, seconds.isFinite, seconds >= 1, seconds <= max else {
                throw APIError.validation("unique.period_s must be a number of seconds from 1 to \(Int(max))", field: "unique.period_s")
            }
            request.periodSeconds = seconds
        }
        return request
    }

    /// `timeout_s` as a duration: a number of seconds above 0 and at most a day.
    private static func timeout(_ seconds: Double?) throws -> Duration {
        guard let seconds, seconds.isFinite, seconds >= 0.001, seconds <= maxTimeoutSeconds else {
            throw APIError.validation("timeout_s must be a number of seconds from 0.001 to \(Int(maxTimeoutSeconds))", field: "timeout_s")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private static func jsonObject(_ bytes: [UInt8], field: String) throws -> JSONObject {
        guard let object = JSONValue.parseObject(bytes) else {
            throw APIError.validation("\(field) must be a JSON object", field: field)
        }
        return object
    }
}

/// `type/subtype; name=value; …`, lower-cased type and names, unquoted values.
struct MediaType {
    var type: String
    var parameters: [String: String]

    init?(_ text: String) {
        let pieces = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = pieces.first, first.contains("/") else { return nil }
        type = first.lowercased()
        parameters = HeaderParameters.parse(pieces.dropFirst())
    }
}

/// `form-data; name="image"; filename="image.jpg"`.
struct ContentDisposition {
    var parameters: [String: String]

    init(_ text: String) {
        parameters = HeaderParameters.parse(text.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
    }
}

enum HeaderParameters {
    static func parse(_ pieces: some Sequence<String>) -> [String: String] {
        var parameters: [String: String] = [:]
        for piece in pieces {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let name = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            parameters[name] = value
        }
        return parameters
    }
}
