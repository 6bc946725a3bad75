import AtelierQueue

/// A chore of the application's own that the maintenance leader runs with its housekeeping
/// (every 30 s), registered in ``WorkerConfiguration/chores`` by the program that embeds the
/// worker: the runtime knows the queue's tables, not the application's. `atelier work` registers
/// the accounts' sign-in purge. A chore's error is logged and stops that round's later chores;
/// the next round tries again.
public struct MaintenanceChore: Sendable {
    /// Names the chore in logs and in the maintenance report.
    public var name: String
    /// Does the chore once; returns how many rows (or items) it removed or changed.
    public var run: @Sendable (JobQueue) async throws -> Int

    public init(name: String, run: @escaping @Sendable (JobQueue) async throws -> Int) {
        self.name = name
        self.run = run
    }
}
