import AtelierQueue
import HTTPTypes

/// What the console refuses, with the page it shows: a status and a sentence for the operator.
/// Never a path, a library's text or a database's message.
struct ConsoleError: Error, Sendable {
    var status: HTTPResponse.Status
    var title: String
    var message: String
    var retryAfter: Int?

    static let notConfigured = ConsoleError(
        status: .serviceUnavailable, title: "The console is not set up",
        message: "The console signs operators in with accounts: set ATELIER_JWT_SECRET and create an admin with `atelier users create --email … --role admin`.")
    static let invalidCredentials = ConsoleError(
        status: .unauthorized, title: "Sign-in failed", message: "The email or the password is wrong.")
    static let notAdmin = ConsoleError(
        status: .forbidden, title: "Not an operator",
        message: "This account does not have the admin role, which the console needs. Ask an operator: `atelier users create --role admin` makes one.")
    static let notSignedIn = ConsoleError(
        status: .forbidden, title: "Sign in first", message: "Your session has ended or was never started: sign in again, then repeat the action.")
    static let forgedForm = ConsoleError(
        status: .forbidden, title: "The form has expired",
        message: "This form's security token does not match your session (it may come from an older page or another site). Nothing was changed: reload the page and try again.")
    static let tooManyStreams = ConsoleError(
        status: .tooManyRequests, title: "Too many console pages open",
        message: "This server has as many live console pages open as it allows; close one and reload.", retryAfter: 5)

    static func badRequest(_ message: String) -> ConsoleError {
        ConsoleError(status: .badRequest, title: "That request is not valid", message: message)
    }

    static func rateLimited(retryAfter: Int) -> ConsoleError {
        ConsoleError(status: .tooManyRequests, title: "Too many sign-in attempts",
                     message: "Wait \(retryAfter) seconds, then try again.", retryAfter: retryAfter)
    }

    /// The queue's own refusals as pages: no such job or schedule (404), not in a state that allows it (409).
    static func from(_ error: QueueError) -> ConsoleError? {
        switch error {
        case .jobNotFound: ConsoleError(status: .notFound, title: "No such job", message: "There is no job with that id (it may have been purged).")
        case .scheduleNotFound(let message): ConsoleError(status: .notFound, title: "No such schedule", message: message)
        case .conflict(let message): ConsoleError(status: .conflict, title: "Not possible now", message: message)
        case .invalidArgument(let message): .badRequest(message)
        case .unreachable, .schema: nil
        }
    }
}
