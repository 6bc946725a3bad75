import Foundation
import Synchronization

/// A token bucket per client: `limit` requests per minute, refilled continuously, bursts up to
/// `limit`. In memory, per API process (each process enforces its own share).
package final class RateLimiter: Sendable {
    package struct Decision: Sendable {
        package var allowed: Bool
        package var limit: Int
        package var remaining: Int
        /// Unix time at which the bucket is full again.
        package var resetAt: Int
        /// Seconds until the next request would be allowed (when refused).
        package var retryAfter: Int
    }

    package let limit: Int
    private let perSecond: Double
    private let buckets = Mutex<[String: (tokens: Double, updated: Double)]>([:])

    package init(perMinute limit: Int) {
        self.limit = max(1, limit)
        self.perSecond = Double(max(1, limit)) / 60
    }

    package func take(_ key: String, now: Double = Date().timeIntervalSince1970) -> Decision {
        buckets.withLock { buckets in
            if buckets.count > 50_000 {
                // Forget clients whose buckets have refilled: they are indistinguishable from new ones.
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * perSecond < Double(limit) }
            }
            var bucket = buckets[key] ?? (Double(limit), now)
            bucket.tokens = min(Double(limit), bucket.tokens + (now - bucket.updated) * perSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets[key] = bucket
            let missing = Double(limit) - bucket.tokens
            return Decision(allowed: allowed, limit: limit, remaining: Int(bucket.tokens),
                            resetAt: Int((now + missing / perSecond).rounded(.up)),
                            retryAfter: allowed ? 0 : max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))))
        }
    }
}
