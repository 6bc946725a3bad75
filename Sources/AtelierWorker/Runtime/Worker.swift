import AtelierDatabase
import AtelierStorage
import AtelierQueue
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// One worker process: claims jobs of its kinds from its queues and runs them.
///
/// - Wake-up: a dedicated LISTEN connection (``Notifier``) rings a doorbell on `atelier_jobs`;
///   the claim loop also polls every `pollInterval`, so a lost notification costs only latency.
/// - Liveness: that same connection holds the worker's advisory lock, so a killed process's
///   jobs are rescued within a second by the maintenance leader (``Maintenance``: one worker
///   process per database, elected by another advisory lock; the others stand by).
/// - Heartbeats renew the leases of running attempts and pick up cancellations.
/// - Graceful shutdown (SIGTERM/SIGINT through ServiceLifecycle): stop claiming, let running
///   jobs finish for `drainTimeout`, then stop and release the rest, deregister, return.
/// - A handler that does not return `stopGrace` after it was told to stop (its timeout, a
///   cancellation) is abandoned: its attempt is recorded as if it had stopped, so the job runs
///   again elsewhere, and this process drains as on SIGTERM and then throws ``WorkerRecycled``,
///   so that its supervisor starts a fresh one (the abandoned task may hold a thread for ever).
public final class Worker: Service, Sendable {
    public let id: String
    private let queue: JobQueue
    private let handlers: HandlerRegistry
    private let configuration: WorkerConfiguration
    private let logger: Logger
    private let slots: WorkerSlots
    private var running: RunningJobs { slots.running }
    private let doorbell = Doorbell()
    private let stopping = Atomic<Bool>(false)
    /// A handler was abandoned: once drained, `run` throws instead of returning.
    private let abandoned = Mutex<String?>(nil)
    private let processed = Atomic<Int64>(0)
    private let completer: JobCompleter
    /// Where jobs keep their files; purged jobs' folders are removed with them.
    private let blobs: (any BlobStore)?

    public init(queue: JobQueue, handlers: HandlerRegistry, configuration: WorkerConfiguration, logger: Logger,
                blobs: (any BlobStore)? = nil) throws {
        try configuration.validate()
        guard !handlers.kinds.isEmpty else { throw QueueError.invalidArgument("a worker needs at least one job handler") }
        self.id = WorkerRegistration.makeID()
        self.queue = queue
        self.handlers = handlers
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "worker"] = "\(id)"
        self.logger = logger
        self.slots = WorkerSlots(
            concurrency: configuration.concurrency,
            template: ClaimRequest(worker: id, queues: configuration.queues, kinds: handlers.kinds, limit: 0,
                                   lease: configuration.lease, isolationWait: configuration.isolationWait),
            doorbell: doorbell, refillsOnCompletion: configuration.claimWithCompletions)
        self.completer = JobCompleter(queue: queue, worker: id, refill: configuration.claimWithCompletions ? slots : nil,
                                      deadline: configuration.statementDeadline)
        self.blobs = blobs
    }

    /// Jobs finished by this process.
    public var processedCount: Int64 { processed.load(ordering: .relaxed) }

    /// Asks the worker to drain and stop (what SIGTERM does).
    public func stop() {
        // Closed first: once the claim loop sees the stop, no flush can deliver jobs it would
        // not start (they are in `takeDelivered()` already, or handed back).
        slots.close()
        stopping.store(true, ordering: .releasing)
        doorbell.ring()
    }

    public func run() async throws {
        let registration = WorkerRegistration(
            id: id, host: ProcessInfo.processInfo.hostName, pid: Int(ProcessInfo.processInfo.processIdentifier),
            queues: configuration.queues, kinds: handlers.kinds, concurrency: configuration.concurrency,
            version: configuration.version)
        let lockKey = try await queue.register(registration)
        let logger = self.logger
        let notifier = Notifier(
            url: queue.url, channels: [Notifier.Channel.jobs, Notifier.Channel.cancel], logger: logger
        ) { connection in
            // Taken or refused at once, never waited for: a session of this worker's that the
            // server has not dropped yet still holds it, and the listener tries again shortly.
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(Schema.lockNamespace), \(lockKey))", logger: logger)
            for try await granted in rows.decode(Bool.self) where !granted {
                throw LivenessLockHeld()
            }
        }
        logger.info("worker starting", metadata: [
            "queues": "\(configuration.queues.joined(separator: ","))", "kinds": "\(handlers.kinds.joined(separator: ","))",
            "concurrency": "\(configuration.concurrency)"])

        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { background in
                background.addTask { await notifier.run() }
                background.addTask { await self.consume(notifier.subscribe()) }
                // Claim nothing before the liveness lock is held, or rescuers would take the jobs back.
                await notifier.ready.wait()
                background.addTask { await self.heartbeatLoop(registration, lockKey: lockKey) }
                background.addTask {
                    await Maintenance(queue: self.queue, configuration: self.configuration, blobs: self.blobs,
                                      logger: self.logger).run()
                }
                await self.claimLoop()
                background.cancelAll()
            }
        } onGracefulShutdown: {
            self.stop()
        }
        do {
            try await queue.deregister(worker: id)
        } catch {
            logger.warning("could not deregister", metadata: ["error": "\(DatabaseErrorText.describe(error))"])
        }
        logger.info("worker stopped", metadata: ["processed": "\(processedCount)"])
        if let kind = abandoned.withLock({ $0 }) { throw WorkerRecycled(kind: kind, grace: configuration.stopGrace) }
    }

    // MARK: Claiming

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Claims while there are free slots and jobs; runs each job as a child task; on stop,
    /// waits for the children (drain).
    ///
    /// Refill in batches: after a claim that filled every free slot (a backlog), the next claim
    /// waits until `refillThreshold` slots are free instead of claiming one job per finished
    /// job, so a busy worker spends one claim per batch, not per job — and that claim rides on
    /// the completion flush of the jobs that freed the slots (``WorkerSlots``),
    /// so a batch costs one round trip. When the queue ran dry, any free slot claims as soon as a
    /// notification or the poll says there is work.
    ///
    /// Isolation: a job whose worker died under it comes back marked to run
    /// alone. The claim gives it only to a worker that runs nothing (and then alone), so while it
    /// runs this loop claims nothing; the claim also gives a busy worker nothing while such a
    /// job has waited `isolationWait`, and the worker drains. Either way, the moment this
    /// worker's last completion lands it claims again (`runJob` rings), so an idle worker picks
    /// up a waiting marked job at once.
    private func claimLoop() async {
        await withDiscardingTaskGroup { jobs in
            func start(_ started: [(ClaimedJob, StopSignal)]) {
                for (job, signal) in started {
                    jobs.addTask { await self.runJob(job, signal: signal) }
                }
            }
            var backoff = Duration.milliseconds(100)
            while !isStopping && !Task.isCancelled {
                start(slots.takeDelivered())
                if let request = slots.reserve(atLeast: slots.backlog ? slots.refillThreshold : 1) {
                    do {
                        let claimed = try await configuration.statementDeadline.run("a claim") { [queue] in
                            try await queue.claim(request)
                        }
                        backoff = .milliseconds(100)
                        start(slots.fill(claimed, for: request))
                        if slots.backlog && slots.free >= slots.refillThreshold { continue }
                    } catch {
                        slots.release(request)
                        logger.warning("claim failed", metadata: ["error": "\(DatabaseErrorText.describe(error))"])
                        try? await Task.sleep(for: backoff)
                        backoff = min(backoff * 2, .seconds(5))
                        continue
                    }
                }
                await doorbell.wait(timeout: configuration.pollInterval)
            }
            // Jobs flushes delivered before the stop run too; later ones were handed back.
            start(slots.takeDelivered())
            await drain()
        }
    }

    private func runJob(_ job: ClaimedJob, signal: StopSignal) async {
        let executor = JobExecutor(queue: queue, handlers: handlers, logger: logger, stopGrace: configuration.stopGrace)
        let executed = await executor.execute(job, stopSignal: signal)
        let outcome = executed.outcome
        // The slot frees when the handler returns, not when its completion is written: the flush
        // that writes it claims for the slot (or the claim loop does, overlapping the write). The
        // drain still waits for the write: this is a child task.
        let before = slots.finished(job)
        // Exactly one finishing job sees the count cross the refill mark: it wakes the claim loop,
        // unless its completion's flush will claim (a backlog).
        if before == configuration.concurrency - slots.refillThreshold + 1 && (outcome == nil || !slots.flushRefills) {
            doorbell.ring()
        }
        if let outcome {
            let landed = await completer.complete(Completion(job: job, outcome: outcome))
            if !landed {
                logger.warning("completion refused: the job's lease belongs to another attempt now",
                               metadata: ["job_id": "\(job.id)", "attempt": "\(job.attempt)"])
            }
        }
        processed.add(1, ordering: .relaxed)
        if executed.abandoned {
            // Claim nothing more: the jobs running here finish (the drain), then `run` throws.
            abandoned.withLock { $0 = $0 ?? job.kind }
            stop()
        }
        // The database now sees this worker idle (or no longer holding a job to run alone): the
        // claim may give it a marked job, or more jobs after one. Claim now, not at the next poll.
        if job.runAlone { slots.aloneJobEnded() }
        if job.runAlone || running.count == 0 { doorbell.ring() }
    }

    /// Lets running jobs finish for `drainTimeout`, then stops the rest (they are released).
    private func drain() async {
        let deadline = ContinuousClock.now + configuration.drainTimeout
        if running.count > 0 {
            logger.info("draining", metadata: ["running": "\(running.count)", "timeout": "\(configuration.drainTimeout)"])
        }
        while running.count > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        guard running.count > 0 else { return }
        logger.warning("drain timeout: stopping and releasing running jobs", metadata: ["running": "\(running.count)"])
        running.stopAll(reason: .shutdown)
        guard configuration.exitIfDrainHangs else { return }
        // A handler that ignores cancellation must not keep the process alive forever.
        let leases = running.leases
        let queue = self.queue, id = self.id, logger = self.logger
        Task.detached {
            try? await Task.sleep(for: .seconds(5))
            let stillRunning = leases.map { Completion(jobID: $0.jobID, attempt: $0.attempt, outcome: .released) }
            _ = try? await queue.complete(stillRunning, worker: id)
            try? await queue.deregister(worker: id)
            logger.error("handlers ignored cancellation; released their jobs and exiting")
            exit(0)
        }
    }

    // MARK: Notifications, heartbeats

    private func consume(_ notifications: AsyncStream<QueueNotification>) async {
        for await notification in notifications {
            switch notification.channel {
            case Notifier.Channel.cancel:
                if let id = UUID(uuidString: notification.payload) { running.stop(id, reason: .cancelRequested) }
            default:
                doorbell.ring()
            }
        }
    }

    private func heartbeatLoop(_ registration: WorkerRegistration, lockKey: Int32) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.heartbeatInterval)
            if Task.isCancelled { return }
            do {
                let leases = running.leases
                let (queue, id, lease, deadline) = (self.queue, self.id, configuration.lease, configuration.statementDeadline)
                let report = try await deadline.run("a lease renewal") {
                    try await queue.extendLeases(leases, worker: id, lease: lease)
                }
                for lease in leases where !report.held.contains(lease.jobID) {
                    running.stop(lease.jobID, reason: .leaseLost)
                }
                for jobID in report.cancelRequested {
                    running.stop(jobID, reason: .cancelRequested)
                }
                let (running, processed) = (running.count, processedCount)
                if try await !deadline.run("a heartbeat", { try await queue.heartbeat(worker: id, running: running, processed: processed) }) {
                    // Pruned while unreachable: back under the key whose lock this process holds.
                    _ = try await queue.register(registration, lockKey: lockKey)
                }
            } catch {
                logger.warning("heartbeat failed", metadata: ["error": "\(DatabaseErrorText.describe(error))"])
            }
        }
    }
}

/// The worker's liveness lock is held by another session: one of its own the server has not
/// dropped yet (a connection lost to a network fault). The listener retries with backoff.
struct LivenessLockHeld: Error, CustomStringConvertible {
    var description: String { "this worker's liveness lock is still held by an earlier session; retrying" }
}
