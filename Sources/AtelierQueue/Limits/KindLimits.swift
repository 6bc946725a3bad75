import Foundation

/// The limits an operator set on one job kind (`atelier limits`, `PUT /v1/admin/limits`, the
/// console's Queues page), global across all workers and read by every claim, so a change is in
/// force at the next claim without a restart. `atelier_claim` keeps them.
public struct KindLimits: Sendable, Equatable {
    public var kind: String
    /// Jobs of the kind running at once, all workers together.
    public var concurrency: Int?
    /// Of those, jobs of one owner.
    public var ownerConcurrency: Int?
    /// Job starts per period (retries included).
    public var rate: RateLimit?
    /// One attempt's limit, in place of the handler's; a job's own `timeout_s` may only shorten it.
    public var timeout: Duration?
    public var updatedAt: Date
    public var updatedBy: String

    /// The largest value of a concurrency limit.
    public static let maxConcurrency = 1_000_000
    /// The longest timeout: one day, as a job's own.
    public static let maxTimeout = Duration.seconds(86_400)

    public init(kind: String, concurrency: Int? = nil, ownerConcurrency: Int? = nil, rate: RateLimit? = nil,
                timeout: Duration? = nil, updatedAt: Date = Date(), updatedBy: String = "") {
        self.kind = kind
        self.concurrency = concurrency
        self.ownerConcurrency = ownerConcurrency
        self.rate = rate
        self.timeout = timeout
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// A kind's limits as `atelier limits list` prints them: `concurrency 4, per owner 2, rate 50/s, timeout 30s`.
    public var summary: String {
        var parts: [String] = []
        if let concurrency { parts.append("concurrency \(concurrency)") }
        if let ownerConcurrency { parts.append("per owner \(ownerConcurrency)") }
        if let rate { parts.append("rate \(rate)") }
        if let timeoutText { parts.append("timeout \(timeoutText)") }
        return parts.joined(separator: ", ")
    }

    /// The timeout as the CLI prints it: `90s`, `0.25s`.
    package var timeoutText: String? {
        timeout.map { "\($0.seconds.formatted(.number.precision(.fractionLength(0...3))))s" }
    }
}

/// A change to one kind's limits: each field is kept, set or removed. The kind's row goes away
/// when the change leaves it no limit.
public struct KindLimitsChange: Sendable, Equatable {
    public enum Field<Value: Sendable & Equatable>: Sendable, Equatable {
        case keep
        case set(Value)
        case remove
    }

    public var kind: String
    public var concurrency: Field<Int> = .keep
    public var ownerConcurrency: Field<Int> = .keep
    public var rate: Field<RateLimit> = .keep
    public var timeout: Field<Duration> = .keep

    public init(kind: String, concurrency: Field<Int> = .keep, ownerConcurrency: Field<Int> = .keep,
                rate: Field<RateLimit> = .keep, timeout: Field<Duration> = .keep) {
        self.kind = kind
        self.concurrency = concurrency
        self.ownerConcurrency = ownerConcurrency
        self.rate = rate
        self.timeout = timeout
    }

    /// A change that makes the kind's limits exactly `limits` (what `PUT` does).
    public static func replacing(with limits: KindLimits) -> KindLimitsChange {
        func field<T>(_ value: T?) -> Field<T> { value.map { .set($0) } ?? .remove }
        return KindLimitsChange(kind: limits.kind, concurrency: field(limits.concurrency),
                                ownerConcurrency: field(limits.ownerConcurrency), rate: field(limits.rate),
                                timeout: field(limits.timeout))
    }

    func validate() throws(QueueError) {
        guard !kind.isEmpty, kind.utf8.count <= 64, !kind.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw QueueError.invalidArgument("a kind is 1–64 characters")
        }
        for (name, field) in [("concurrency", concurrency), ("per-owner concurrency", ownerConcurrency)] {
            if case .set(let value) = field, !(1...KindLimits.maxConcurrency).contains(value) {
                throw QueueError.invalidArgument("\(name) must be within 1…\(KindLimits.maxConcurrency), got \(value)")
            }
        }
        if case .set(let value) = timeout, value < .milliseconds(1) || value > KindLimits.maxTimeout {
            throw QueueError.invalidArgument("a timeout must be within 1ms…24h")
        }
    }
}
