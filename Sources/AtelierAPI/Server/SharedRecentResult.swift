/// A costly answer that package or frequent routes share: computed at most once per `maxAge`,
/// and callers that arrive while it is being computed wait for that one computation instead of
/// starting their own. Failures are shared the same way, so a down dependency is asked once per
/// `maxAge`, not once per request. (`/metrics`' job counts, `/health`'s probes.)
actor SharedRecentResult<Value: Sendable> {
    private let maxAge: Duration
    private let compute: @Sendable () async throws -> Value
    private var last: (result: Result<Value, any Error>, at: ContinuousClock.Instant)?
    private var running: Task<Value, any Error>?

    init(maxAge: Duration, _ compute: @escaping @Sendable () async throws -> Value) {
        self.maxAge = maxAge
        self.compute = compute
    }

    func value() async throws -> Value {
        if let last, ContinuousClock.now - last.at < maxAge { return try last.result.get() }
        if let running { return try await running.value }
        let task = Task { try await compute() }
        running = task
        let result = await task.result
        last = (result, .now)
        running = nil
        return try result.get()
    }
}
