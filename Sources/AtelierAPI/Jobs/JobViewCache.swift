import AtelierQueue
import Foundation
import Synchronization

/// Rendered job JSON (and its ETag) for `GET /v1/jobs/{id}`, so pollers cost no database
/// round trip: a poll that hits answers 200 or 304 from memory.
///
/// Correctness comes from the shared LISTEN connection: every job change appends a job event,
/// whose notification drops the job's entry *before* any event stream sees it. A read that
/// raced with a change cannot store its stale copy (the tombstone is newer than the read).
/// Nothing is cached or served from the cache while the listener is down, everything is dropped
/// when it reconnects, and entries expire anyway (`ttl`, and before the result URL's window).
final class JobViewCache: Sendable {
    struct Entry: Sendable {
        var owner: String
        var body: Data
        var etag: String
        var expires: ContinuousClock.Instant
    }

    private enum Slot {
        case entry(Entry)
        case tombstone(UInt64)
    }

    private struct State {
        var slots: [UUID: Slot] = [:]
        var generation: UInt64 = 0
        /// Reads that started before this generation may not store (after a flush).
        var floor: UInt64 = 0
    }

    private let state = Mutex(State())
    private let notifier: Notifier
    private let capacity: Int
    let ttl: Duration

    init(notifier: Notifier, capacity: Int = 100_000, ttl: Duration = .seconds(30)) {
        self.notifier = notifier
        self.capacity = capacity
        self.ttl = ttl
        notifier.observe { [weak self] notification in
            guard let self else { return }
            if notification == .reconnected {
                self.flush()
            } else if notification.channel == Notifier.Channel.jobEvents {
                self.invalidate(Self.jobIDs(in: notification.payload))
            }
        }
    }

    /// A fresh entry for `id`, if there is one.
    func lookup(_ id: UUID, now: ContinuousClock.Instant = .now) -> Entry? {
        guard notifier.isListening else { return nil }
        return state.withLock { state in
            guard case .entry(let entry)? = state.slots[id], entry.expires > now else { return nil }
            return entry
        }
    }

    /// Call before reading the job from the database; pass the token to ``store(_:_:readToken:)``.
    func beginRead() -> UInt64 {
        state.withLock { $0.generation }
    }

    func store(_ id: UUID, _ entry: Entry, readToken: UInt64) {
        guard notifier.isListening else { return }
        state.withLock { state in
            guard readToken >= state.floor else { return }
            if case .tombstone(let generation)? = state.slots[id], generation > readToken { return }
            if state.slots.count >= capacity {
                state.slots.removeAll(keepingCapacity: true)
                state.floor = state.generation
                guard readToken >= state.floor else { return }
            }
            state.slots[id] = .entry(entry)
        }
    }

    func invalidate(_ ids: [UUID]) {
        guard !ids.isEmpty else { return }
        state.withLock { state in
            state.generation += 1
            for id in ids { state.slots[id] = .tombstone(state.generation) }
        }
    }

    func flush() {
        state.withLock { state in
            state.generation += 1
            state.slots.removeAll()
            state.floor = state.generation
        }
    }

    /// `job_id:event_id,job_id:event_id,…` → job ids.
    static func jobIDs(in payload: String) -> [UUID] {
        payload.split(separator: ",").compactMap { pair in
            pair.split(separator: ":", maxSplits: 1).first.flatMap { UUID(uuidString: String($0)) }
        }
    }
}
