/// An error that must not be retried: the same input would fail the same way.
public protocol PermanentError: Error {
    /// What went wrong, for the person who submitted the job.
    var message: String { get }
}

/// The error a handler throws to say how a job failed.
public struct JobFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var isPermanent: Bool

    /// Bad input or an impossible request: fail now, no retry.
    public static func permanent(_ message: String) -> JobFailure {
        JobFailure(message: message, isPermanent: true)
    }

    /// Worth another try later (a dependency is down, a timeout).
    public static func transient(_ message: String) -> JobFailure {
        JobFailure(message: message, isPermanent: false)
    }

    public var description: String { message }
}
