import AtelierDatabase
import AtelierQueue
import AtelierStorage
import Foundation
import Logging

/// `ATELIER_STARTUP_WAIT` (default 0: fail at once, as a command run by hand should): how long
/// `serve`, `work` and `migrate` keep trying to reach what they start against — the database,
/// its schema at this build's version, the blob store — before they give up with the error.
///
/// Containers start together and in no reliable order (podman-compose starts every service at
/// once, whatever `depends_on` says), so the compose file sets it and each process waits for its
/// dependencies itself instead of exiting and being restarted in a loop. Only outages are
/// retried: a database that does not take the connection, a schema another process is still
/// migrating, a store that does not answer. A bad setting fails at once.
struct StartupWait {
    let limit: Duration
    let logger: Logger

    init(settings: Settings, logger: Logger = Logger(label: "atelier.startup")) throws {
        limit = try settings.duration("ATELIER_STARTUP_WAIT") ?? .zero
        self.logger = logger
    }

    /// `body`'s answer, retried with a growing pause (0.25 s … 2 s) while it fails with an outage
    /// and the wait lasts; the last error otherwise.
    func retrying<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var pause = Duration.milliseconds(250)
        var told = false
        while true {
            do {
                let value = try await body()
                if told { logger.info("\(what) is ready") }
                return value
            } catch {
                guard Self.isOutage(error), clock.now + pause < deadline else { throw error }
                if !told {
                    logger.notice("waiting for \(what) (up to \(DurationText.format(seconds: limit.seconds)))",
                                  metadata: ["reason": "\(DatabaseErrorText.describe(error))"])
                    told = true
                }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
            }
        }
    }

    static func isOutage(_ error: any Error) -> Bool {
        if case .unavailable = error as? StorageError { return true }
        switch DatabaseErrorText.queueError(error) {
        case .unreachable, .schema: return true
        default: return false
        }
    }
}
