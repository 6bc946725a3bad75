import Foundation

/// How long a snoozed job waits (``JobOutcome/snoozed(reason:delay:)``): an attempt that met an
/// outage (the blob store down) gives the job back without spending an attempt, and each
/// snooze in a row waits longer, so a long outage costs a job nothing but a few cheap claims.
///
/// The delay before snooze `n` of a streak (1-based, ``ClaimedJob/snoozeStreak`` + 1) is
/// `base × 2^(n-1)`, capped at `maxDelay`, then multiplied by a random factor in `1 ± jitter`
/// so that jobs snoozed together do not all come back together when the store does.
/// Defaults: 2 s, 4 s, 8 s, 16 s, 32 s, then 60 s, ±10 %.
public struct SnoozePolicy: Sendable, Equatable {
    public var base: Duration
    public var maxDelay: Duration
    /// Fraction of the delay, 0…1.
    public var jitter: Double

    public init(base: Duration = .seconds(2), maxDelay: Duration = .seconds(60), jitter: Double = 0.1) {
        self.base = base
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
    }

    public static let `default` = SnoozePolicy()

    /// The delay before the middle of the jitter band, for snooze `snooze` (1-based) of a streak.
    public func nominalDelay(snooze: Int) -> Duration {
        let exponent = Double(min(max(0, snooze - 1), 62))
        let seconds = min(base.seconds * pow(2, exponent), maxDelay.seconds)
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The delay to use, jittered with `generator`.
    public func delay(snooze: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let nominal = nominalDelay(snooze: snooze).seconds
        let spread = jitter == 0 ? 1 : Double.random(in: (1 - jitter)...(1 + jitter), using: &generator)
        return .milliseconds(Int64(nominal * spread * 1000))
    }

    public func delay(snooze: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(snooze: snooze, using: &generator)
    }
}
