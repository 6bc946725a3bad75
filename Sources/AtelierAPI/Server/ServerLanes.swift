import AtelierLanes

/// The lanes of an API process (``WorkLane``): one for each kind of costly work a request can
/// ask for, so a flood of one kind fills its own lane only — further requests of that kind get
/// `503` with `Retry-After` at once (``LaneFullError``) — and never holds up the others, nor
/// `/health`, polls or streams, which need no lane.
package struct ServerLanes: Sendable {
    /// Places and line of one lane: `ATELIER_LANE_<NAME>=concurrency,queue`.
    package struct Limits: Sendable, Equatable {
        package var concurrency: Int
        package var queue: Int

        package init(concurrency: Int, queue: Int) {
            (self.concurrency, self.queue) = (concurrency, queue)
        }
    }

    /// An uploaded image's header (`POST /v1/jobs`, Mondrian's `/upload`): linear in its size,
    /// up to `ATELIER_MAX_UPLOAD_BYTES`.
    package let probes: WorkLane
    /// scrypt: sign-in, sign-up and password changes (32 MiB each, and the CPU of BENCHMARKS.md,
    /// "Accounts").
    package let passwords: WorkLane
    /// A search query or chat message embedded by MiniLM.
    package let embeddings: WorkLane
    /// A chat answer from the configured model (a paid provider's call, or the local one).
    package let chat: WorkLane

    /// The most places the blocking lanes may have together (``LaneThreads/capacity``).
    package static let threadCapacity = LaneThreads.capacity

    /// Every lane's limits, as configured.
    package struct Configuration: Sendable, Equatable {
        /// Defaults, for 2 cores: places of blocking work (probes, passwords, embeddings) may add
        /// up to at most ``LaneThreads/capacity``.
        package var probes = Limits(concurrency: 2, queue: 16)
        package var passwords = Limits(concurrency: 2, queue: 32)
        package var embeddings = Limits(concurrency: 2, queue: 32)
        package var chat = Limits(concurrency: 8, queue: 16)

        package init() {}

        /// Whether the blocking lanes' places fit ``LaneThreads`` (so none waits for a thread).
        package var fitsLaneThreads: Bool {
            probes.concurrency + passwords.concurrency + embeddings.concurrency <= LaneThreads.capacity
        }
    }

    package init(_ configuration: Configuration = Configuration()) {
        probes = WorkLane(name: "image probes", concurrency: configuration.probes.concurrency, queueLimit: configuration.probes.queue)
        passwords = WorkLane(name: "password checks", concurrency: configuration.passwords.concurrency,
                             queueLimit: configuration.passwords.queue)
        embeddings = WorkLane(name: "search embeddings", concurrency: configuration.embeddings.concurrency,
                              queueLimit: configuration.embeddings.queue)
        chat = WorkLane(name: "chat answers", concurrency: configuration.chat.concurrency, queueLimit: configuration.chat.queue,
                        retryAfterSeconds: 5)
    }

    package var all: [WorkLane] { [probes, passwords, embeddings, chat] }
}
