import NIOPosix

/// CPU-heavy work a route must not do on Swift's cooperative pool, where it would hold up every
/// other request's tasks for its duration: embedding a search query, probing an uploaded image's
/// header. It runs on NIO's shared thread pool instead — the rule `JobHandler` states for the
/// workers (`JobContext.offload`), kept by the API too.
enum CPUWork {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}
