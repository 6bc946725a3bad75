import AtelierDatabase
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// One notification received on a channel.
package struct QueueNotification: Sendable, Equatable {
    package var channel: String
    package var payload: String

    /// Sent to subscribers after a reconnect: notifications may have been missed, re-check.
    package static let reconnected = QueueNotification(channel: "", payload: "reconnected")

    /// The jobs a job-events notification names (payload `job_id:event_id,…`; empty for other channels).
    package var jobIDs: [UUID] {
        guard channel == Notifier.Channel.jobEvents else { return [] }
        return payload.split(separator: ",").compactMap { pair in
            pair.split(separator: ":", maxSplits: 1).first.flatMap { UUID(uuidString: String($0)) }
        }
    }
}

/// One dedicated LISTEN connection per process, fanned out to any number of subscribers.
///
/// Reconnects with backoff when the connection drops. `onConnect` runs on every new connection
/// before listening (the worker takes its liveness lock there). Notifications are a latency
/// optimisation only: every consumer also polls, so a lost one costs time, never a job.
package final class Notifier: Sendable {
    package enum Channel {
        /// Payload: queue name. A job became claimable now.
        package static let jobs = "atelier_jobs"
        /// Payload: `job_id:event_id,…`. New job events.
        package static let jobEvents = "atelier_job_events"
        /// Payload: job id. Someone asked to cancel a running job.
        package static let cancel = "atelier_cancel"
        /// Payload: `changed`. An app token was revoked or deleted.
        package static let tokens = "atelier_tokens"
    }

    private let url: DatabaseURL
    private let channels: [String]
    private let logger: Logger
    private let onConnect: (@Sendable (PostgresConnection) async throws -> Void)?
    private let subscribers = Mutex<[UUID: AsyncStream<QueueNotification>.Continuation]>([:])
    private let observers = Mutex<[@Sendable (QueueNotification) -> Void]>([])
    private let listeningFlag = Atomic<Bool>(false)
    /// Opens after the first successful connect (and `onConnect`).
    package let ready = Gate()

    /// True while notifications are flowing. Caches that are invalidated by notifications must
    /// not be trusted while this is false.
    package var isListening: Bool { listeningFlag.load(ordering: .acquiring) }

    package init(url: DatabaseURL, channels: [String], logger: Logger,
                onConnect: (@Sendable (PostgresConnection) async throws -> Void)? = nil) {
        self.url = url
        self.channels = channels
        self.logger = logger
        self.onConnect = onConnect
    }

    /// A stream of every notification on the notifier's channels, until the stream is dropped.
    package func subscribe(bufferingNewest limit: Int = 10_000) -> AsyncStream<QueueNotification> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: QueueNotification.self, bufferingPolicy: .bufferingNewest(limit))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Calls `observer` synchronously for every notification, before any subscriber stream sees
    /// it (cache invalidation must happen before a client can react to the same event).
    /// `.reconnected` is delivered too: everything may be stale then.
    package func observe(_ observer: @escaping @Sendable (QueueNotification) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    private func broadcast(_ notification: QueueNotification) {
        for observer in observers.withLock({ $0 }) { observer(notification) }
        let targets = subscribers.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(notification) }
    }

    /// How long a new connection's set-up (`onConnect`, then a LISTEN per channel) may take
    /// before the connection is closed and another tried. Seen in the container proof: after a
    /// PostgreSQL restart a worker's listener reconnected into a set-up that never finished, so
    /// its liveness lock was never taken again and the leader rescued every job it claimed,
    /// for as long as it ran.
    static let setupTimeout = Duration.seconds(15)

    /// Listens until the task is cancelled, reconnecting as needed.
    package func run() async {
        var backoff = Duration.milliseconds(100)
        var connectedBefore = false
        while !Task.isCancelled {
            do {
                let connection = try await connect()
                let watchdog = Task { [weak self] in
                    try await Task.sleep(for: Self.setupTimeout)
                    guard let self, !self.isListening else { return }
                    self.logger.warning("listener set-up did not finish; closing the connection to try again",
                                        metadata: ["timeout": "\(Self.setupTimeout)"])
                    try? await connection.close()
                }
                defer { watchdog.cancel() }
                do {
                    try await withTaskCancellationHandler {
                        try await onConnect?(connection)
                        try await listen(on: connection, announceReconnect: connectedBefore)
                    } onCancel: {
                        let closing: EventLoopFuture<Void> = connection.close()
                        _ = closing
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { break }
                logger.warning("listener connection lost; reconnecting", metadata: [
                    "error": "\(DatabaseErrorText.describe(error))", "retry_in": "\(backoff)"])
            }
            connectedBefore = connectedBefore || ready.isOpen
            if Task.isCancelled { break }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(5))
        }
        // Finish outside the lock: finish() runs each stream's onTermination at once, and that
        // takes this lock to unsubscribe (a Mutex is not recursive: it would trap).
        let remaining = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in remaining { continuation.finish() }
    }

    /// A connection, or an error once `setupTimeout` has passed: PostgresNIO bounds its own
    /// connect, and this bounds it again, so the loop never waits on one attempt for ever. A
    /// connection that arrives after the time is up is closed.
    private func connect() async throws -> PostgresConnection {
        let (url, logger) = (self.url, self.logger)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresConnection, any Error>) in
            let once = ResumeOnce(continuation)
            Task {
                do {
                    let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration(), id: 1, logger: logger)
                    if !once.resume(.success(connection)) { try? await connection.close() }
                } catch {
                    once.resume(.failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: Self.setupTimeout)
                once.resume(.failure(ConnectTimedOut()))
            }
        }
    }

    /// A continuation resumed by whichever comes first; later results are refused (false).
    private final class ResumeOnce: Sendable {
        private let continuation: Mutex<CheckedContinuation<PostgresConnection, any Error>?>

        init(_ continuation: CheckedContinuation<PostgresConnection, any Error>) {
            self.continuation = Mutex(continuation)
        }

        @discardableResult
        func resume(_ result: Result<PostgresConnection, any Error>) -> Bool {
            guard let continuation = continuation.withLock({ stored in defer { stored = nil }; return stored }) else { return false }
            continuation.resume(with: result)
            return true
        }
    }

    private struct ConnectTimedOut: Error, CustomStringConvertible {
        var description: String { "the listener's connection attempt did not finish within \(Notifier.setupTimeout)" }
    }

    private struct ListenerEnded: Error, CustomStringConvertible {
        var description: String { "notification stream ended" }
    }

    private func listen(on connection: PostgresConnection, announceReconnect: Bool) async throws {
        try await listenAll(connection, channels[...], [], announceReconnect: announceReconnect)
    }

    /// LISTENs on each channel in turn (nesting keeps each UNLISTEN tied to its scope), then
    /// drains all channels at once. Returns only by throwing: the connection is gone.
    private func listenAll(
        _ connection: PostgresConnection, _ remaining: ArraySlice<String>,
        _ listening: [(String, PostgresNotificationSequence)], announceReconnect: Bool
    ) async throws {
        if let channel = remaining.first {
            try await connection.listen(on: channel) { notifications in
                try await self.listenAll(connection, remaining.dropFirst(), listening + [(channel, notifications)],
                                         announceReconnect: announceReconnect)
            }
            return
        }
        ready.open()
        listeningFlag.store(true, ordering: .releasing)
        defer { listeningFlag.store(false, ordering: .releasing) }
        if announceReconnect {
            logger.notice("listener reconnected")
            broadcast(.reconnected)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (channel, notifications) in listening {
                group.addTask {
                    for try await notification in notifications {
                        self.broadcast(QueueNotification(channel: channel, payload: notification.payload))
                    }
                }
            }
            try await group.next()
            group.cancelAll()
            throw ListenerEnded()
        }
    }
}
