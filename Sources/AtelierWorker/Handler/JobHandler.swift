import AtelierQueue
import Foundation

/// Runs the jobs of one kind. Register handlers in a ``HandlerRegistry``; a worker claims only
/// the kinds it has handlers for.
///
/// Contract:
/// - Throw ``JobFailure/permanent(_:)`` (or any ``PermanentError``) for bad input: the job fails
///   at once, with that message. Any other error is transient: retried with ``retryPolicy``
///   until `max_attempts`.
/// - Check ``JobContext/isCancelled`` (or call ``JobContext/checkCancellation()``) between
///   stages; Swift task cancellation is delivered too.
/// - Do CPU-heavy work inside ``JobContext/offload(_:)``, never directly on the cooperative pool.
/// - Side effects must tolerate a second run: after a crash the job runs again, and only the
///   run holding the lease can record its result.
public protocol JobHandler: Sendable {
    /// The job kind this handler runs, e.g. `stylize`.
    var kind: String { get }
    /// Backoff for transient failures.
    var retryPolicy: RetryPolicy { get }
    /// Time limit for one attempt; a timed-out attempt is a transient failure. `nil`: no limit.
    var timeout: Duration? { get }

    func run(_ context: JobContext) async throws -> JobResult
}

extension JobHandler {
    public var retryPolicy: RetryPolicy { .default }
    public var timeout: Duration? { nil }
}

/// What a successful job leaves behind: a JSON object, or nothing.
public struct JobResult: Sendable, Equatable {
    /// JSON object text, or nil.
    public var json: String?

    public init(json: String?) {
        self.json = json
    }

    public static let none = JobResult(json: nil)

    /// Encodes `value` (which must encode as a JSON object) as the result.
    public static func encode<T: Encodable>(_ value: T) throws -> JobResult {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return JobResult(json: String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// The kinds a worker can run.
public struct HandlerRegistry: Sendable {
    private var handlers: [String: any JobHandler] = [:]

    public init(_ handlers: [any JobHandler] = []) {
        for handler in handlers { register(handler) }
    }

    public mutating func register(_ handler: any JobHandler) {
        precondition(handlers[handler.kind] == nil, "two handlers for job kind '\(handler.kind)'")
        handlers[handler.kind] = handler
    }

    public func handler(for kind: String) -> (any JobHandler)? { handlers[kind] }

    public var kinds: [String] { handlers.keys.sorted() }

    /// Only the handlers of `kinds`; unknown names are an error that names them.
    public func restricted(to kinds: [String]) throws -> HandlerRegistry {
        let unknown = kinds.filter { handlers[$0] == nil }
        guard unknown.isEmpty else {
            throw JobFailure.permanent("unknown job kind(s) \(unknown.joined(separator: ", ")); this worker knows \(self.kinds.joined(separator: ", "))")
        }
        return HandlerRegistry(kinds.compactMap { handlers[$0] })
    }
}
