import PostgresNIO

/// Turns PostgresNIO errors into one line a person can act on.
public enum DatabaseErrorText {
    public static func describe(_ error: any Error) -> String {
        if let error = error as? QueueError { return error.message }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.commitError ?? error.beginError {
                return describe(inner)
            }
        }
        if let error = error as? PSQLError {
            if let info = error.serverInfo, let message = info[.message] {
                var text = message
                if let detail = info[.detail] { text += " (\(detail))" }
                if let state = info[.sqlState] { text += " [SQLSTATE \(state)]" }
                return text
            }
            if let underlying = error.underlying {
                return "\(error.code): \(underlying)"
            }
            return "\(error.code)"
        }
        return String(describing: error)
    }

    /// The ``QueueError`` inside `error`, if any (transactions wrap the errors thrown inside them).
    public static func queueError(_ error: any Error) -> QueueError? {
        if let error = error as? QueueError { return error }
        if let error = error as? PostgresTransactionError, let inner = error.closureError {
            return queueError(inner)
        }
        return nil
    }

    /// The SQLSTATE of a server error, if the error came from the server.
    public static func sqlState(_ error: any Error) -> String? {
        if let error = error as? PostgresTransactionError, let inner = error.closureError ?? error.commitError {
            return sqlState(inner)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}
