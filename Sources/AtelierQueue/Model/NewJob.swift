import Foundation

/// What an enqueuer asks for. Only `kind` is required.
public struct NewJob: Sendable {
    /// The job's id; nil lets the queue make a UUIDv7. The API sets it to name the job's blobs
    /// before the insert.
    public var id: UUID?
    public var kind: String
    /// JSON object text handed to the handler.
    public var payload: String
    public var queue: String
    /// Higher runs first. Interactive work (captions) uses `Priority.interactive`.
    public var priority: Int
    public var owner: String
    public var maxAttempts: Int
    /// Not claimable before this instant; `nil` means now.
    public var runAt: Date?
    /// A repeated enqueue with the same (owner, key) returns the first job instead of a new one.
    public var idempotencyKey: String?
    public var requestID: String?
    public var parentID: UUID?
    /// Jobs to enqueue when this one succeeds (see ``FollowUp``).
    public var followUps: [FollowUp]
    /// How long one attempt may run (1 ms … ``maxTimeout``); past it the handler is cancelled
    /// and the attempt recorded as timed out, retried by the kind's policy. Nil: the kind's own
    /// timeout, if it has one.
    public var timeout: Duration?
    /// Enqueue returns the existing job of this owner, kind and key instead of a new one while
    /// that job is queued, running or finished within the period (``UniqueJob``).
    public var unique: UniqueJob?

    /// The longest ``timeout`` a job may ask for.
    public static let maxTimeout = Duration.seconds(7 * 86_400)

    public init(
        id: UUID? = nil,
        kind: String,
        payload: String = "{}",
        queue: String = "default",
        priority: Int = Priority.normal,
        owner: String = "system",
        maxAttempts: Int = 5,
        runAt: Date? = nil,
        delay: Duration? = nil,
        idempotencyKey: String? = nil,
        requestID: String? = nil,
        parentID: UUID? = nil,
        followUps: [FollowUp] = [],
        timeout: Duration? = nil,
        unique: UniqueJob? = nil
    ) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.queue = queue
        self.priority = priority
        self.owner = owner
        self.maxAttempts = maxAttempts
        if let delay {
            self.runAt = Date().addingTimeInterval(delay.seconds)
        } else {
            self.runAt = runAt
        }
        self.idempotencyKey = idempotencyKey
        self.requestID = requestID
        self.parentID = parentID
        self.followUps = followUps
        self.timeout = timeout
        self.unique = unique
    }

    func validate() throws(QueueError) {
        guard !kind.isEmpty, kind.count <= 64 else { throw .invalidArgument("job kind must be 1–64 characters") }
        guard !queue.isEmpty, queue.count <= 64 else { throw .invalidArgument("queue name must be 1–64 characters") }
        guard (Priority.lowest...Priority.highest).contains(priority) else {
            throw .invalidArgument("priority must be between \(Priority.lowest) and \(Priority.highest), got \(priority)")
        }
        guard (1...100).contains(maxAttempts) else {
            throw .invalidArgument("max attempts must be between 1 and 100, got \(maxAttempts)")
        }
        if let key = idempotencyKey, key.isEmpty || key.count > 255 {
            throw .invalidArgument("idempotency key must be 1–255 characters")
        }
        if let timeout, timeout < .milliseconds(1) || timeout > Self.maxTimeout {
            throw .invalidArgument("timeout must be between 1 ms and 7 days, got \(timeout)")
        }
        try unique?.validate()
        for followUp in followUps { try followUp.validate() }
    }
}

/// Named priorities; any integer in `lowest...highest` works.
public enum Priority {
    public static let lowest = -100
    public static let batch = -10
    public static let normal = 0
    public static let interactive = 50
    public static let highest = 100
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }

    public var milliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}
