import AtelierDatabase

/// Errors of the queue library. Every case carries a message meant for the person reading it.
public enum QueueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database cannot be reached.
    case unreachable(String)
    /// The database schema does not match this build of Atelier: what
    /// ``DatabaseErrorText/queueError(_:)`` makes of the migrator's ``SchemaError``.
    case schema(String)
    /// No job with that id (or the id is not a job id at all).
    case jobNotFound(String)
    /// No schedule with that name.
    case scheduleNotFound(String)
    /// The request is valid but the job is in a state that does not allow it.
    case conflict(String)
    /// A value given to the queue is out of range.
    case invalidArgument(String)

    public var message: String {
        switch self {
        case .unreachable(let m), .schema(let m), .jobNotFound(let m), .scheduleNotFound(let m), .conflict(let m),
             .invalidArgument(let m):
            return m
        }
    }

    public var description: String { message }
}
