import Foundation
import PostgresNIO

/// A job row as the operator and the API see it.
public struct Job: Sendable, Equatable {
    public var id: UUID
    public var kind: String
    public var queue: String
    public var state: JobState
    public var priority: Int
    public var owner: String
    /// JSON text.
    public var payload: String
    /// JSON text, set when the job succeeded.
    public var result: String?
    public var error: String?
    /// JSON array text: `[{attempt, at, error}]`, oldest first.
    public var errors: String
    /// Claims so far (the current one when running), crashes and snoozes included.
    public var attempt: Int
    /// Handler attempts allowed; attempts lost to a dead worker (``crashes``) or given back
    /// during an outage (``snoozes``) do not count.
    public var maxAttempts: Int
    /// Claims that ended because their worker stopped (killed, or hung past its lease).
    public var crashes: Int
    /// Of those, how many in a row since an attempt's handler last finished, counting only the
    /// crashes of a worker that was running nothing but this job; the rescuer fails the job as
    /// a poison pill when this reaches the crash limit.
    public var crashStreak: Int
    /// The job's worker died under it since an attempt's handler last finished: it is claimed
    /// only by a worker that runs nothing else, so its next crash is its own.
    public var runAlone: Bool
    /// Claims whose handler met an outage (the blob store down) and gave the job back for later.
    public var snoozes: Int
    /// Of those, how many in a row since an attempt's handler last finished otherwise: each one
    /// waits longer (``SnoozePolicy``).
    public var snoozeStreak: Int
    public var runAt: Date
    public var leaseOwner: String?
    public var leaseExpiresAt: Date?
    public var progress: Int
    public var progressStep: String?
    public var cancelRequested: Bool
    public var idempotencyKey: String?
    public var requestID: String?
    public var parentID: UUID?
    /// JSON array text: the jobs enqueued when this one succeeds (``FollowUp``), or nil.
    public var followUp: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?

    /// Columns in the order `init(row:)` decodes them.
    static let columns = """
        id, kind, queue, state, priority::int, owner, payload::text, result::text, error, errors::text,
        attempt, max_attempts, run_at, lease_owner, lease_expires_at, progress::int, progress_step,
        cancel_requested, idempotency_key, request_id, parent_id, follow_up::text, created_at, updated_at, started_at, finished_at,
        crashes, crash_streak, snoozes, snooze_streak, run_alone
        """

    init(row: PostgresRow) throws {
        let (id, kind, queue, state, priority, owner, payload, result, error, errors,
             attempt, maxAttempts, runAt, leaseOwner, leaseExpiresAt, progress, progressStep,
             cancelRequested, idempotencyKey, requestID, parentID, followUp, createdAt, updatedAt, startedAt, finishedAt,
             crashes, crashStreak, snoozes, snoozeStreak, runAlone)
            = try row.decode((UUID, String, String, String, Int, String, String, String?, String?, String,
                              Int, Int, Date, String?, Date?, Int, String?,
                              Bool, String?, String?, UUID?, String?, Date, Date, Date?, Date?,
                              Int, Int, Int, Int, Bool).self)
        self.id = id
        self.kind = kind
        self.queue = queue
        self.state = JobState(rawValue: state) ?? .failed
        self.priority = priority
        self.owner = owner
        self.payload = payload
        self.result = result
        self.error = error
        self.errors = errors
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.crashes = crashes
        self.crashStreak = crashStreak
        self.snoozes = snoozes
        self.snoozeStreak = snoozeStreak
        self.runAlone = runAlone
        self.runAt = runAt
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.progress = progress
        self.progressStep = progressStep
        self.cancelRequested = cancelRequested
        self.idempotencyKey = idempotencyKey
        self.requestID = requestID
        self.parentID = parentID
        self.followUp = followUp
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}

/// What a worker holds after a claim: enough to run the job and to fence its completion.
public struct ClaimedJob: Sendable, Equatable {
    public var id: UUID
    public var kind: String
    public var queue: String
    public var priority: Int
    public var owner: String
    public var payload: String
    /// This claim's attempt number (1 for the first run), crashes and snoozes included.
    /// Completion is fenced on it.
    public var attempt: Int
    /// Handler attempts allowed (attempts lost to a dead worker or snoozed do not count).
    public var maxAttempts: Int
    public var requestID: String?
    public var createdAt: Date
    /// The worker that holds the lease.
    public var leaseOwner: String
    /// Earlier claims of this job that ended because their worker stopped.
    public var crashes: Int = 0
    /// Earlier claims of this job that were snoozed during an outage (``JobOutcome/snoozed(reason:delay:)``).
    public var snoozes: Int = 0
    /// Of those, how many in a row just before this claim; the next snooze waits longer
    /// (``SnoozePolicy``).
    public var snoozeStreak: Int = 0
    /// The job was marked to run alone (its worker died under it before): the worker that
    /// claimed it claims nothing else until this attempt is over.
    public var runAlone: Bool = false
    /// The job's own limit on one attempt (``NewJob/timeout``); nil: the kind's.
    public var timeout: Duration?
    /// The limit an operator set on the kind (``KindLimits/timeout``); nil: the handler's.
    public var kindTimeout: Duration?

    /// This attempt's number among attempts whose handler ran to an end (1 for the first):
    /// the claim number minus the attempts lost to dead workers and those snoozed during an
    /// outage. Retry limits and backoff use it.
    public var handlerAttempt: Int { attempt - crashes - snoozes }

    public var isLastAttempt: Bool { handlerAttempt >= maxAttempts }
}

/// One entry of a job's ordered history.
public struct JobEvent: Sendable, Equatable {
    public var id: Int64
    public var jobID: UUID
    public var type: String
    /// JSON object text.
    public var data: String
    public var createdAt: Date
}
