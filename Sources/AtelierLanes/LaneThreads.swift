import NIOPosix

#if os(Linux)
import Glibc
#endif

/// The threads blocking lane work runs on: a pool of the process's own, big enough for every
/// lane's places at once (``capacity``; the API checks its lanes' sum against it), so work in one
/// lane never queues behind another lane's. Apart from NIO's shared pool, which other work uses.
///
/// On Linux each item runs at nice ``niceness``: a full lane then takes only the CPU that request
/// handling leaves (the event loops and Swift's pool stay at the process's own priority), so polls,
/// `/health` and streams keep their pace while the lanes are busy, and an idle machine still gives
/// the lanes every core.
package enum LaneThreads {
    /// Threads in the pool: the most lane places the lanes of one process may add up to.
    package static let capacity = 32
    /// The nice value lane work runs at (the process's own is usually 0; higher is kinder).
    package static let niceness: Int32 = 10

    private static let pool = NIOThreadPool._makePerpetualStartedPool(numberOfThreads: capacity, threadNamePrefix: "atelier-lane")

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive {
            yieldToRequests()
            return try work()
        }
    }

    /// Lowers the calling thread's priority (on Linux the nice value is a thread's, and `who` 0 is
    /// the calling thread): idempotent, one system call.
    private static func yieldToRequests() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
