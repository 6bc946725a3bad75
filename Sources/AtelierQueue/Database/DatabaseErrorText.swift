import AtelierDatabase
import PostgresNIO

/// Turns PostgresNIO errors into one line a person can act on.
package enum DatabaseErrorText {
    package static func describe(_ error: any Error) -> String {
        if let error = error as? QueueError { return error.message }
        if let error = error as? ConfigurationError { return error.message }
        if let error = error as? SchemaError { return error.message }
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
    /// A server that is going away or not yet accepting connections is `.unreachable`, like a
    /// refused connection: PostgreSQL shutting down or restarting is an outage, not a bad request.
    /// A ``SchemaError`` (the migrator's) is `.schema`; a ``ConfigurationError`` (a bad setting) is
    /// none of these, and stays what it is.
    package static func queueError(_ error: any Error) -> QueueError? {
        if let error = error as? QueueError { return error }
        if let error = error as? SchemaError { return .schema(error.message) }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError, let found = queueError(inner) { return found }
            if let inner = error.beginError ?? error.commitError ?? error.closureError {
                return queueError(inner)
            }
            return nil
        }
        if let state = sqlState(error), isUnavailable(state) {
            return .unreachable("the database is not available now: \(describe(error))")
        }
        return nil
    }

    /// SQLSTATEs of a server that cannot serve right now: class 08 (connection exceptions),
    /// 57P01 admin shutdown (`pg_ctl stop -m fast`), 57P02 crash shutdown, 57P03 cannot connect
    /// now (starting up or shutting down).
    static func isUnavailable(_ state: String) -> Bool {
        state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    }

    /// The PostgresNIO error inside `error`: itself, or what a transaction wrapped (its body's
    /// error first, then its commit's, then its begin's).
    package static func databaseError(_ error: any Error) -> PSQLError? {
        if let error = error as? PostgresTransactionError {
            guard let inner = error.closureError ?? error.commitError ?? error.beginError else { return nil }
            return databaseError(inner)
        }
        return error as? PSQLError
    }

    /// The connection failed (refused, closed, timed out) rather than the server answering with
    /// an error: an outage, not a bad request.
    package static func isConnectionFailure(_ error: any Error) -> Bool {
        guard let error = databaseError(error) else { return false }
        return error.serverInfo == nil
    }

    /// The server refused the statement for what it asked (a constraint, a raised exception) —
    /// not because it is going away or not yet serving.
    package static func isRefusedStatement(_ error: any Error) -> Bool {
        guard let state = sqlState(error) else { return false }
        return !isUnavailable(state)
    }

    /// The SQLSTATE of a server error, if the error came from the server.
    package static func sqlState(_ error: any Error) -> String? {
        databaseError(error)?.serverInfo?[.sqlState]
    }
}
