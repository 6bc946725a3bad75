/// What went wrong talking to the store. ``storageError`` is what callers see — a sentence fit
/// for an API's log or a job's error, naming the HTTP status and S3's error code at most —
/// while `detail` (the store's own message, the HTTP client's error) is for the log only: the
/// store's body or XML never reaches a client.
struct S3Failure: Error, Sendable {
    enum Kind: Sendable {
        /// No answer: connection refused or reset, a time-out, DNS.
        case unreachable
        /// 5xx or throttling, after every retry.
        case serverError
        /// 403: wrong keys, a clock too far off, no permission.
        case refused
        /// 404 for the bucket itself.
        case noBucket
        /// Any other final answer (400, 409 …).
        case rejected
        /// An answer that is not what S3 sends (unreadable XML).
        case badAnswer
    }

    var kind: Kind
    var operation: String
    var status: Int?
    /// S3's `<Code>`, kept only when it looks like one (letters and digits).
    var code: String?
    var detail: String?
    var attempts: Int

    init(_ kind: Kind, operation: String, status: Int? = nil, code: String? = nil, detail: String? = nil, attempts: Int = 1) {
        self.kind = kind
        self.operation = operation
        self.status = status
        self.code = code.flatMap { code in
            code.count <= 64 && code.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
            } ? code : nil
        }
        self.detail = detail
        self.attempts = attempts
    }

    /// `HTTP 503 SlowDown`.
    private var answer: String {
        guard let status else { return "no answer" }
        return code.map { "HTTP \(status) \($0)" } ?? "HTTP \(status)"
    }

    private var tries: String { attempts > 1 ? ", after \(attempts) attempts" : "" }

    var storageError: StorageError {
        switch kind {
        case .unreachable:
            return .unavailable("the object store cannot be reached (\(operation)\(tries))")
        case .serverError:
            return .unavailable("the object store failed (\(operation): \(answer)\(tries))")
        case .refused:
            return .configuration("the object store refused the request (\(operation): \(answer)); "
                + "check ATELIER_S3_ACCESS_KEY_ID, ATELIER_S3_SECRET_ACCESS_KEY and the clock")
        case .noBucket:
            return .configuration("the bucket named by ATELIER_S3_BUCKET does not exist on the object store (\(operation))")
        case .rejected:
            return .unavailable("the object store refused the request (\(operation): \(answer))")
        case .badAnswer:
            return .unavailable("the object store's answer could not be read (\(operation))")
        }
    }
}
