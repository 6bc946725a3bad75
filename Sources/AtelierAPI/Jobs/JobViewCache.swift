import AtelierQueue
import Foundation
import Synchronization

/// Rendered job JSON (and its ETag) for `GET /v1/jobs/{id}`, so pollers cost no database
/// round trip: a poll that hits answers 200 or 304 from memory.
///
/// Correctness comes from the shared LISTEN connection: every job change appends a job event,
/// whose notification drops the job's entry *before* any event stream sees it. A read that
/// raced with a change cannot store its stale copy: the change leaves a tombstone newer than
/// the read. Tombstones are kept for the newest `tombstoneCapacity` changes only; a read older
/// than the oldest forgotten one may not store (reads take milliseconds, so that is rare).
/// Nothing is cached or served from the cache while the listener is down, everything is dropped
/// when it reconnects, and entries expire anyway (`ttl`, and before the result URL's window);
/// expired entries are evicted when the cache fills. Memory is bounded by both capacities,
/// however many jobs change.
final class JobViewCache: Sendable {
    struct Entry: Sendable {
        var owner: String
        var body: Data
        var etag: String
        var expires: ContinuousClock.Instant
        /// The package base the body's URLs were built on (``PublicBaseURL``): a request with
        /// another base (a trusted `Host`) renders its own.
        var base = ""
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        /// Job → generation of its newest change, for the newest changes only.
        var tombstones: [UUID: UInt64] = [:]
        /// The same changes in order, oldest first (a ring: `ringStart` is the oldest).
        var ring: [(id: UUID, generation: UInt64)] = []
        var ringStart = 0
        var generation: UInt64 = 0
        /// Reads that started before this generation may not store (after a flush, or once a
        /// change they might have raced with is no longer remembered).
        var floor: UInt64 = 0
    }

    private let state = Mutex(State())
    private let notifier: Notifier
    private let capacity: Int
    private let tombstoneCapacity: Int
    let ttl: Duration

    init(notifier: Notifier, capacity: Int = 100_000, tombstoneCapacity: Int = 4096, ttl: Duration = .seconds(30)) {
        self.notifier = notifier
        self.capacity = max(1, capacity)
        self.tombstoneCapacity = max(1, tombstoneCapacity)
        self.ttl = ttl
        notifier.observe { [weak self] notification in
            guard let self else { return }
            if notification == .reconnected {
                self.flush()
            } else if notification.channel == Notifier.Channel.jobEvents {
                self.invalidate(notification.jobIDs)
            }
        }
    }

    /// A fresh entry for `id`, if there is one.
    func lookup(_ id: UUID, now: ContinuousClock.Instant = .now) -> Entry? {
        guard notifier.isListening else { return nil }
        return state.withLock { state in
            guard let entry = state.entries[id], entry.expires > now else { return nil }
            return entry
        }
    }

    /// Call before reading the job from the database; pass the token to ``store(_:_:readToken:now:)``.
    func beginRead() -> UInt64 {
        state.withLock { $0.generation }
    }

    func store(_ id: UUID, _ entry: Entry, readToken: UInt64, now: ContinuousClock.Instant = .now) {
        guard notifier.isListening else { return }
        state.withLock { state in
            guard readToken >= state.floor else { return }
            if let changed = state.tombstones[id], changed > readToken { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { $0.value.expires > now }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[id] = entry
        }
    }

    func invalidate(_ ids: [UUID]) {
        guard !ids.isEmpty else { return }
        state.withLock { state in
            state.generation += 1
            for id in ids {
                state.entries.removeValue(forKey: id)
                state.tombstones[id] = state.generation
                if state.ring.count < tombstoneCapacity {
                    state.ring.append((id, state.generation))
                } else {
                    // Forget the oldest change; reads that might have raced with it may not store.
                    let oldest = state.ring[state.ringStart]
                    if state.tombstones[oldest.id] == oldest.generation { state.tombstones.removeValue(forKey: oldest.id) }
                    state.floor = max(state.floor, oldest.generation)
                    state.ring[state.ringStart] = (id, state.generation)
                    state.ringStart = (state.ringStart + 1) % tombstoneCapacity
                }
            }
        }
    }

    func flush() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll()
            state.tombstones.removeAll()
            state.ring.removeAll()
            state.ringStart = 0
            state.floor = state.generation
        }
    }

    /// The generation of `id`'s newest remembered change: for tests.
    func tombstone(of id: UUID) -> UInt64? {
        state.withLock { $0.tombstones[id] }
    }

    /// What the cache holds now: for tests that check it stays bounded.
    var counts: (entries: Int, tombstones: Int) {
        state.withLock { ($0.entries.count, $0.tombstones.count) }
    }
}
