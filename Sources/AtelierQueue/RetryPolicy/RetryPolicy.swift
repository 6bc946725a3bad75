import Foundation

/// When to run a failed attempt again: exponential backoff with jitter, capped.
///
/// The delay after attempt `n` (1-based) is `base × factor^(n-1)`, capped at `maxDelay`, then
/// multiplied by a random factor in `1 ± jitter` so that jobs that failed together do not all
/// come back together. Defaults: 2 s, 8 s, 32 s, 2 min 8 s … up to 1 h, ±25 %.
public struct RetryPolicy: Sendable, Equatable {
    public var base: Duration
    public var factor: Double
    public var maxDelay: Duration
    /// Fraction of the delay, 0…1.
    public var jitter: Double

    public init(base: Duration = .seconds(2), factor: Double = 4, maxDelay: Duration = .seconds(3600), jitter: Double = 0.25) {
        self.base = base
        self.factor = max(1, factor)
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
    }

    public static let `default` = RetryPolicy()

    /// The delay before the middle of the jitter band, for attempt `attempt` that just failed.
    public func nominalDelay(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let seconds = min(base.seconds * pow(factor, exponent), maxDelay.seconds)
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The delay to use, jittered with `generator`.
    public func delay(afterAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let nominal = nominalDelay(afterAttempt: attempt).seconds
        let spread = jitter == 0 ? 1 : Double.random(in: (1 - jitter)...(1 + jitter), using: &generator)
        return .milliseconds(Int64(nominal * spread * 1000))
    }

    public func delay(afterAttempt attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, using: &generator)
    }
}

