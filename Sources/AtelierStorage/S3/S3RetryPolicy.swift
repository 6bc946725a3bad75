/// When a request to the store is tried again: on connection errors, time-outs, 5xx answers and
/// throttling (503 SlowDown, 429), up to `maxAttempts` in all, after a backoff that doubles from
/// `baseDelay` (capped at `maxDelay`), jittered between half and all of it, so a fleet that failed together does not
/// retry together. Other answers (403, 404, 400 …) are final.
public struct S3RetryPolicy: Sendable, Equatable {
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(2)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Whether an answer with this status is worth another attempt.
    public static func retries(status: Int) -> Bool {
        status >= 500 || status == 429
    }

    /// The pause before attempt `attempt + 1` (attempts count from 1).
    func delay(after attempt: Int) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(max(attempt - 1, 0), 16)))
        let milliseconds = Int(ceiling.components.seconds) * 1000 + Int(ceiling.components.attoseconds / 1_000_000_000_000_000)
        return .milliseconds(Int.random(in: (milliseconds / 2)...max(milliseconds / 2, milliseconds)))
    }
}
