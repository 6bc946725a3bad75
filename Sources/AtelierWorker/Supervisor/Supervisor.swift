import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// `atelier work --processes P`: starts P worker processes and restarts any that dies.
///
/// Each child is this same executable run with `arguments` (a single-process `work`). On
/// graceful shutdown the supervisor sends SIGTERM to every child, waits for them to drain,
/// and returns. A child that keeps dying right after start (bad settings, database unreachable)
/// is restarted with growing delays; one that was up and running, or was SIGKILLed from
/// outside (an operator, the OOM killer, ./ops/chaos), is restarted after half a second.
public final class Supervisor: Service, Sendable {
    private let executable: URL
    private let arguments: [String]
    private let processes: Int
    private let logger: Logger
    private let children = Mutex<[Int: Process]>([:])
    private let stopping = Atomic<Bool>(false)

    public init(executable: URL, arguments: [String], processes: Int, logger: Logger) {
        self.executable = executable
        self.arguments = arguments
        self.processes = processes
        self.logger = logger
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for slot in 0..<processes {
                    group.addTask { await self.keepAlive(slot: slot) }
                }
            }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .releasing)
            for child in self.children.withLock({ Array($0.values) }) where child.isRunning {
                kill(child.processIdentifier, SIGTERM)
            }
        }
        logger.info("all worker processes stopped")
    }

    private func keepAlive(slot: Int) async {
        var restartDelay = Duration.milliseconds(500)
        while !stopping.load(ordering: .acquiring) {
            let started = ContinuousClock.now
            let (status, killed) = await runChild(slot: slot)
            if stopping.load(ordering: .acquiring) { return }
            if killed || ContinuousClock.now - started > Self.upAndRunning { restartDelay = .milliseconds(500) }
            logger.error("worker process exited; restarting", metadata: [
                "slot": "\(slot)", "status": "\(status)", "restart_in": "\(restartDelay)"])
            try? await Task.sleep(for: restartDelay)
            // Start-up crash loops back off up to 30 s.
            restartDelay = min(restartDelay * 2, .seconds(30))
        }
    }

    /// A child that lived this long got past its start-up: its death is not a start-up crash loop.
    static let upAndRunning = Duration.seconds(5)

    /// Runs one child to its end; returns its exit description and whether SIGKILL ended it.
    private func runChild(slot: Int) async -> (String, Bool) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ATELIER_WORKER_SLOT"] = String(slot)
        process.environment = environment
        return await withCheckedContinuation { continuation in
            process.terminationHandler = { process in
                let signalled = process.terminationReason == .uncaughtSignal
                continuation.resume(returning: ("\(signalled ? "signal" : "exit") \(process.terminationStatus)",
                                                signalled && process.terminationStatus == SIGKILL))
            }
            do {
                try process.run()
                children.withLock { $0[slot] = process }
                logger.info("worker process started", metadata: ["slot": "\(slot)", "pid": "\(process.processIdentifier)"])
                // A stop that raced with the start still reaches this child.
                if stopping.load(ordering: .acquiring) { kill(process.processIdentifier, SIGTERM) }
            } catch {
                continuation.resume(returning: ("could not start: \(error)", false))
            }
        }
    }
}
