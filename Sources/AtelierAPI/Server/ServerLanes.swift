import AtelierLanes

/// The lanes of an API process (``WorkLane``): one for each kind of costly work a request can
/// ask for, so a flood of one kind fills its own lane only — a request of that kind that would
/// wait past its lane's deadline gets `503` with `Retry-After` at once (``LaneFullError``) — and
/// never holds up the others, nor `/health`, polls or streams, which need no lane.
package struct ServerLanes: Sendable {
    /// Places, line and deadline of one lane: `ATELIER_LANE_<NAME>=concurrency,queue[,max_wait]`.
    package struct Limits: Sendable, Equatable {
        package var concurrency: Int
        /// The most requests that may wait (what they hold in memory is bounded by it).
        package var queue: Int
        /// The longest a request should wait for a place: one that would wait longer is refused.
        package var maxWait: Duration

        package init(concurrency: Int, queue: Int, maxWait: Duration = .seconds(2)) {
            (self.concurrency, self.queue, self.maxWait) = (concurrency, queue, maxWait)
        }
    }

    /// An uploaded image's header (`POST /v1/jobs`, Mondrian's `/upload`): linear in its size,
    /// up to `ATELIER_MAX_UPLOAD_BYTES`.
    package let probes: WorkLane
    /// scrypt: sign-in, sign-up and password changes (32 MiB each, and the CPU of docs/benchmarks/accounts.md,
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
        /// up to at most ``LaneThreads/capacity``. A request waits at most 2 s for a place; a
        /// sign-in (scrypt: 0.1 s or more each, a person waiting) and a chat answer (a provider
        /// that takes seconds anyway) 10 s. The lines are long enough that the
        /// deadline, not the count, decides for ordinary work — an upload's probe takes well under
        /// a millisecond, so 64 clients uploading at once all wait their turn — while each line's
        /// length bounds what its waiting requests hold (an upload waits with its body in memory).
        package var probes = Limits(concurrency: 2, queue: 64)
        package var passwords = Limits(concurrency: 2, queue: 32, maxWait: .seconds(10))
        package var embeddings = Limits(concurrency: 2, queue: 32)
        package var chat = Limits(concurrency: 8, queue: 16, maxWait: .seconds(10))

        package init() {}

        /// Whether the blocking lanes' places fit ``LaneThreads`` (so none waits for a thread).
        package var fitsLaneThreads: Bool {
            probes.concurrency + passwords.concurrency + embeddings.concurrency <= LaneThreads.capacity
        }
    }

    package init(_ configuration: Configuration = Configuration()) {
        probes = Self.lane("image probes", configuration.probes)
        passwords = Self.lane("password checks", configuration.passwords)
        embeddings = Self.lane("search embeddings", configuration.embeddings)
        chat = Self.lane("chat answers", configuration.chat, retryAfterSeconds: 5)
    }

    package var all: [WorkLane] { [probes, passwords, embeddings, chat] }

    private static func lane(_ name: String, _ limits: Limits, retryAfterSeconds: Int = 1) -> WorkLane {
        WorkLane(name: name, concurrency: limits.concurrency, queueLimit: limits.queue, maxWait: limits.maxWait,
                 retryAfterSeconds: retryAfterSeconds)
    }
}
