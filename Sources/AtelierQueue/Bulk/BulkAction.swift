import Foundation
import PostgresNIO

/// What a bulk action does to each job it matches, as the single-job action would.
public enum BulkActionKind: String, Sendable, CaseIterable, Codable {
    /// A queued job is cancelled; a running one is told to stop (its worker records `cancelled`).
    case cancel
    /// A failed or cancelled job is queued again with a fresh set of attempts.
    case retry
    /// A finished job is deleted with its events and files.
    case purge

    /// The states a job may be in to be acted on.
    public var actsOn: [JobState] {
        switch self {
        case .cancel: return [.queued, .running]
        case .retry: return [.failed, .cancelled]
        case .purge: return JobState.finished
        }
    }

    /// The past participle, for sentences ("cancelled 1,000 jobs").
    public var done: String {
        switch self {
        case .cancel: return "cancelled"
        case .retry: return "retried"
        case .purge: return "purged"
        }
    }
}

/// One bulk action (a row of `bulk_actions`): its filter, who started it, how far it got.
public struct BulkAction: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        /// Batches are being taken (or will be, by whoever continues it).
        case running
        /// Stopped by an operator between two batches; `resume` continues it.
        case stopped
        /// Every matching job was acted on.
        case done
    }

    public var id: Int64
    public var action: BulkActionKind
    /// The filter as written (terms, times resolved).
    public var filter: String
    public var actor: String
    public var state: State
    public var batchSize: Int
    /// Jobs the filter matched when the action began (the progress bar's whole).
    public var matched: Int64
    /// Jobs cancelled, retried or purged so far.
    public var acted: Int64
    /// Running jobs told to stop (cancel only); each records `cancelled` when its worker stops it.
    public var stopping: Int64
    public var batches: Int
    public var startedAt: Date
    public var updatedAt: Date
    public var finishedAt: Date?

    static let columns = "id, action, filter, actor, state, batch_size, matched, acted, stopping, batches, started_at, updated_at, finished_at"

    init(row: PostgresRow) throws {
        let (id, action, filter, actor, state, batchSize, matched, acted, stopping, batches, startedAt, updatedAt, finishedAt) =
            try row.decode((Int64, String, String, String, String, Int32, Int64, Int64, Int64, Int32, Date, Date, Date?).self)
        self.id = id
        self.action = BulkActionKind(rawValue: action) ?? .cancel
        self.filter = filter
        self.actor = actor
        self.state = State(rawValue: state) ?? .running
        self.batchSize = Int(batchSize)
        self.matched = matched
        self.acted = acted
        self.stopping = stopping
        self.batches = Int(batches)
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }
}

/// What a dry run reports: how many jobs an action would act on now, and a few of them.
public struct BulkPreview: Sendable {
    public var count: Int64
    public var sample: [Job]
}
