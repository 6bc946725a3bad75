import AtelierDatabase
import AtelierLanes
import AtelierQueue
import AtelierStorage
import Hummingbird
import Logging
import PostgresNIO

/// Maps every error type the API can meet to an ``APIError``. Unknown errors become a 500 whose
/// message names the request id (the log line has the details); nothing internal leaks.
package enum ErrorMapping {
    package static func apiError(for error: any Error, requestID: String, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as QueueError:
            switch error {
            case .jobNotFound(let message), .scheduleNotFound(let message): return .notFound(message)
            case .invalidArgument(let message): return .validation(message)
            case .conflict(let message): return .conflict(message)
            case .unreachable:
                logger.error("database unreachable", metadata: ["error": "\(error)"])
                return .unavailable("the database is not reachable; try again shortly")
            case .schema:
                logger.error("server misconfigured", metadata: ["error": "\(error)"])
                return .internal(requestID)
            }
        case let error as LaneFullError:
            return .busy(error)
        case let error as ConfigurationError:
            logger.error("server misconfigured", metadata: ["error": "\(error)"])
            return .internal(requestID)
        case let error as StorageError:
            switch error {
            case .invalidKey(let message): return .validation(message)
            case .notFound(let message): return .notFound(message)
            case .unavailable, .configuration:
                logger.error("blob store failure", metadata: ["error": "\(error)"])
                return .unavailable("storage is not available; try again shortly")
            }
        case let error as HTTPError:
            switch error.status {
            case .contentTooLarge:
                return APIError(.contentTooLarge, "PayloadTooLargeError", error.body ?? "the request body is too large")
            case .notFound:
                return .notFound(error.body ?? "no such route")
            case .methodNotAllowed:
                return APIError(.methodNotAllowed, "MethodNotAllowedError", error.body ?? "method not allowed on this route")
            case let status where (400..<500).contains(status.code):
                return APIError(status, "ValidationError", error.body ?? status.reasonPhrase)
            default:
                logger.error("request failed", metadata: ["error": "\(error)"])
                return .internal(requestID)
            }
        default:
            if let described = DatabaseErrorText.queueError(error) {
                return apiError(for: described, requestID: requestID, logger: logger)
            }
            if DatabaseErrorText.isConnectionFailure(error) {
                logger.error("database connection failed", metadata: ["error": "\(DatabaseErrorText.describe(error))"])
                return .unavailable("the database is not reachable; try again shortly")
            }
            logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            return .internal(requestID)
        }
    }
}
