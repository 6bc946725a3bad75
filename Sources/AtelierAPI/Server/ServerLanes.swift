import AtelierLanes

/// The lanes of an API process (``WorkLane``): one for each kind of costly work a request can
/// ask for, so a flood of one kind fills its own lane only — further requests of that kind get
/// `503` with `Retry-After` at once (``LaneFullError``) — and never holds up the others, nor
/// `/health`, polls or streams, which need no lane.
public struct ServerLanes: Sendable {
    /// Places and line of one lane: `ATELIER_LANE_<NAME>=concurrency,queue`.
    public struct Limits: Sendable, Equatable {
        public var concurrency: Int
        public var queue: Int

        public init(concurrency: Int, queue: Int) {
            (self.concurrency, self.queue) = (concurrency, queue)
        }
    }

    /// An uploaded image's header (`POST /v1/jobs`, Mondrian's `/upload`): linear in its size,
    /// up to `ATELIER_MAX_UPLOAD_BYTES`.
    public let probes: WorkLane
    /// scrypt: sign-in, sign-up and password changes (32 MiB each, and the CPU of BENCHMARKS.md,
    /// "Accounts").
    public let passwords: WorkLane
    /// A search query or chat message embedded by MiniLM.
    public let embeddings: WorkLane
    /// A chat answer from the configured model (a paid provider's call, or the local one).
    public let chat: WorkLane

    /// The most places the blocking lanes may have together (``LaneThreads/capacity``).
    public static let threadCapacity = LaneThreads.capacity

    /// Every lane's limits, as configured.
    public struct Configuration: Sendable, Equatable {
        /// Defaults, for 2 cores: places of blocking work (probes, passwords, embeddings) may add
        /// up to at most ``LaneThreads/capacity``.
        public var probes = Limits(concurrency: 2, queue: 16)
        public var passwords = Limits(concurrency: 2, queue: 32)
        public var embeddings = Limits(concurrency: 2, queue: 32)
        public var chat = Limits(concurrency: 8, queue: 16)

        public init() {}

        /// Whether the blocking lanes' places fit ``LaneThreads`` (so none waits for a thread).
        public var fitsLaneThreads: Bool {
            probes.concurrency + passwords.concurrency + embeddings.concurrency <= LaneThreads.capacity
        }
    }

    public init(_ configuration: Configuration = Configuration()) {
        probes = WorkLane(name: "image probes", concurrency: configuration.probes.concurrency, queueLimit: configuration.probes.queue)
        passwords = WorkLane(name: "password checks", concurrency: configuration.passwords.concurrency,
                             queueLimit: configuration.passwords.queue)
        embeddings = WorkLane(name: "search embeddings", concurrency: configuration.embeddings.concurrency,
                              queueLimit: configuration.embeddings.queue)
        chat = WorkLane(name: "chat answers", concurrency: configuration.chat.concurrency, queueLimit: configuration.chat.queue,
                        retryAfterSeconds: 5)
    }

    public var all: [WorkLane] { [probes, passwords, embeddings, chat] }
}
