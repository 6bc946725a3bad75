/// An error that must not be retried: the same input would fail the same way.
public protocol PermanentError: Error {
    /// What went wrong, for the person who submitted the job.
    var message: String { get }
}

/// The error a handler throws to say how a job failed.
public struct JobFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var isPermanent: Bool
    /// What the job's `result` holds once it has failed for good (a JSON object's text): facts
    /// about the failure for the API to act on, not for clients, whose views never show a failed
    /// job's result. Nil: none.
    public var result: String?

    /// Bad input or an impossible request: fail now, no retry. `result`: see ``result``.
    public static func permanent(_ message: String, result: String? = nil) -> JobFailure {
        JobFailure(message: message, isPermanent: true, result: result)
    }

    /// Worth another try later (a dependency is down, a timeout).
    public static func transient(_ message: String) -> JobFailure {
        JobFailure(message: message, isPermanent: false)
    }

    public var description: String { message }
}
