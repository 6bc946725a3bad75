import AtelierQueue
import AtelierStorage
import Foundation

/// A job as clients see it. `status` is exactly docs/contracts.md §3's `pending|succeeded|failed`
/// (queued and running are pending; cancelled is failed, with an error); `state` is the
/// queue's own state for clients that want more. Absent values are `null`, never omitted.
struct JobView: Encodable {
    var id: String
    var kind: String
    var status: String
    var state: String
    var progress: Int
    var progressStep: String?
    var result: JSONText?
    var resultURL: String?
    var error: String?
    var attempt: Int
    var maxAttempts: Int
    var requestID: String?
    var parentID: String?
    var createdAt: Date
    var startedAt: Date?
    var finishedAt: Date?
    var statusURL: String
    var streamURL: String

    enum CodingKeys: String, CodingKey {
        case id, kind, status, state, progress, result, error, attempt
        case progressStep = "progress_step", resultURL = "result_url", maxAttempts = "max_attempts"
        case requestID = "request_id", parentID = "parent_id", createdAt = "created_at", startedAt = "started_at"
        case finishedAt = "finished_at", statusURL = "status_url", streamURL = "stream_url"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(status, forKey: .status)
        try c.encode(state, forKey: .state)
        try c.encode(progress, forKey: .progress)
        try c.encode(progressStep, forKey: .progressStep)
        try c.encode(result, forKey: .result)
        try c.encode(resultURL, forKey: .resultURL)
        try c.encode(error, forKey: .error)
        try c.encode(attempt, forKey: .attempt)
        try c.encode(maxAttempts, forKey: .maxAttempts)
        try c.encode(requestID, forKey: .requestID)
        try c.encode(parentID, forKey: .parentID)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(finishedAt, forKey: .finishedAt)
        try c.encode(statusURL, forKey: .statusURL)
        try c.encode(streamURL, forKey: .streamURL)
    }

    /// The name of the result field that holds a blob key; the API turns it into `result_url`.
    static let resultBlobField = "result_blob"

    init(_ job: Job, baseURL: String, signer: URLSigner, now: Date = Date()) {
        let id = job.id.uuidString.lowercased()
        self.id = id
        kind = job.kind
        state = job.state.rawValue
        switch job.state {
        case .queued, .running: status = "pending"
        case .succeeded: status = "succeeded"
        case .failed, .cancelled: status = "failed"
        }
        progress = job.progress
        progressStep = job.progressStep
        result = job.result.map(JSONText.init)
        if job.state == .succeeded, let key = job.result.flatMap(Self.resultBlob) {
            resultURL = baseURL + signer.signedPath(for: key, now: now)
        }
        switch job.state {
        case .failed: error = job.error ?? "the job failed"
        case .cancelled: error = job.error.map { $0 == "cancelled" ? "the job was cancelled" : "the job was cancelled: \($0)" } ?? "the job was cancelled"
        default: error = nil
        }
        attempt = job.attempt
        maxAttempts = job.maxAttempts
        requestID = job.requestID
        parentID = job.parentID?.uuidString.lowercased()
        createdAt = job.createdAt
        startedAt = job.startedAt
        finishedAt = job.finishedAt
        statusURL = "\(baseURL)/v1/jobs/\(id)"
        streamURL = "\(baseURL)/v1/jobs/\(id)/events"
    }

    static func resultBlob(_ resultJSON: String) -> BlobKey? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(resultJSON.utf8)) as? [String: Any],
              let key = object[resultBlobField] as? String else { return nil }
        return try? BlobKey(key)
    }
}

/// JSON text already rendered (a job's result) embedded as a value, not as a string.
struct JSONText: Encodable {
    let text: String

    func encode(to encoder: any Encoder) throws {
        let value = try JSONDecoder().decode(AnyJSON.self, from: Data(text.utf8))
        try value.encode(to: encoder)
    }
}

/// Any JSON value, for passing results through `Codable`.
enum AnyJSON: Codable {
    case null, bool(Bool), number(Double), integer(Int64), string(String), array([AnyJSON]), object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([AnyJSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: AnyJSON].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let d): try c.encode(d)
        case .integer(let i): try c.encode(i)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

enum APIJSON {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
        }
        return encoder
    }

    static func encode(_ value: some Encodable) throws -> Data {
        try encoder().encode(value)
    }
}
