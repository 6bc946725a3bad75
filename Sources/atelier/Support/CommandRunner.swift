import AtelierAccounts
import ArgumentParser
import AtelierDatabase
import AtelierQueue
import AtelierWorker
import Foundation
import Logging

/// Options every database command takes.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "PostgreSQL URL (default: $ATELIER_DATABASE_URL).")
    var databaseURL: String?
}

/// Exit codes, documented in README: 0 success, 1 failure, 3 not found, 4 conflict,
/// 69 database unreachable, 78 a bad setting (``ConfigurationError``) or schema; argument errors use 64.
enum CommandExit {
    static func code(for error: any Error) -> Int32 {
        if error is ConfigurationError { return 78 }
        // EX_TEMPFAIL: the worker process handed its jobs back and wants to be started again.
        if error is WorkerRecycled { return 75 }
        if let account = error as? AccountError {
            switch account {
            case .notFound: return 3
            case .conflict: return 4
            case .invalidArgument, .invalidCredentials, .invalidToken: return 64
            case .configuration: return 78
            }
        }
        switch DatabaseErrorText.queueError(error) {
        case .jobNotFound, .scheduleNotFound: return 3
        case .conflict: return 4
        case .unreachable: return 69
        case .schema: return 78
        case .invalidArgument: return 64
        case nil: return 1
        }
    }
}

/// Runs a command body against the queue; turns failures into one line on stderr and an exit code.
func withQueue<T: Sendable>(
    _ options: DatabaseOptions, logLevel: Logger.Level = .warning, _ body: @Sendable (JobQueue) async throws -> T
) async throws -> T {
    let settings = Settings()
    do {
        try settings.bootstrapLogging(fallback: logLevel)
        let url = try settings.databaseURL(flag: options.databaseURL)
        // The pool's "not running yet" notice is noise for a one-shot command.
        var logger = Logger(label: "atelier")
        logger.logLevel = max(logLevel, .error)
        let wait = try StartupWait(settings: settings)
        if wait.limit > .zero {
            try await wait.retrying("the database") { try await JobQueue.checkReachable(url, logger: logger) }
        }
        return try await JobQueue.withQueue(url: url, applicationName: "atelier-cli",
                                            fairShare: try settings.fairShare(), logger: logger, body)
    } catch {
        throw fail(error)
    }
}

/// Prints `error` for a person and returns the exit code to throw.
func fail(_ error: any Error) -> ExitCode {
    if let exit = error as? ExitCode { return exit }
    FileHandle.standardError.write(Data("atelier: \(DatabaseErrorText.describe(error))\n".utf8))
    return ExitCode(CommandExit.code(for: error))
}

/// Writes a line to standard output.
func say(_ text: String = "") {
    print(text)
}
