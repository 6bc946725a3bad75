import AtelierStorage
import NIOCore
import Synchronization

/// The hottest rendered variants, in memory, so a phone scrolling a grid costs the API no
/// store round trip: a hit is answered from a shared `ByteBuffer` (no copy, no stat, no read).
///
/// Bounded in bytes (`ATELIER_VARIANT_MEMORY_MB`, 0 turns it off); one variant may take at most
/// an eighth of it. Past the bound the least recently used entries go, down to three quarters,
/// so eviction is paid once per many inserts. Entries live `ttl` (60 s) at most: a purged job's
/// variants are deleted from the store, and memory may answer for them only that long after —
/// the same bound a client's own `max-age` copy already exceeds.
final class VariantMemoryCache: Sendable {
    struct Entry: Sendable {
        var info: BlobInfo
        var body: ByteBuffer
    }

    private struct Slot {
        var entry: Entry
        var expires: ContinuousClock.Instant
        var lastUsed: UInt64
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    private let state = Mutex(State())
    let capacity: Int
    let ttl: Duration

    init(capacity: Int, ttl: Duration = .seconds(60)) {
        self.capacity = max(0, capacity)
        self.ttl = ttl
    }

    /// The variant stored under `key`, if it is here and fresh.
    func lookup(_ key: BlobKey, now: ContinuousClock.Instant = .now) -> Entry? {
        guard capacity > 0 else { return nil }
        return state.withLock { state in
            guard var slot = state.slots[key.path] else { return nil }
            guard slot.expires > now else {
                state.slots.removeValue(forKey: key.path)
                state.bytes -= slot.entry.body.readableBytes
                return nil
            }
            state.tick += 1
            slot.lastUsed = state.tick
            state.slots[key.path] = slot
            return slot.entry
        }
    }

    /// Keeps `entry` for `ttl`, evicting the least recently used when the bound is passed.
    func store(_ entry: Entry, now: ContinuousClock.Instant = .now) {
        let size = entry.body.readableBytes
        guard capacity > 0, size <= capacity / 8 else { return }
        let key = entry.info.key.path
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: key) { state.bytes -= old.entry.body.readableBytes }
            state.tick += 1
            state.slots[key] = Slot(entry: entry, expires: now + ttl, lastUsed: state.tick)
            state.bytes += size
            guard state.bytes > capacity else { return }
            Self.evict(&state, downTo: capacity / 4 * 3, now: now)
        }
    }

    /// Drops expired entries, then the least recently used, until `target` bytes or fewer remain.
    private static func evict(_ state: inout State, downTo target: Int, now: ContinuousClock.Instant) {
        for (key, slot) in state.slots where slot.expires <= now {
            state.slots.removeValue(forKey: key)
            state.bytes -= slot.entry.body.readableBytes
        }
        guard state.bytes > target else { return }
        for (key, slot) in state.slots.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            state.slots.removeValue(forKey: key)
            state.bytes -= slot.entry.body.readableBytes
            if state.bytes <= target { break }
        }
    }

    /// Entries and bytes held now: for tests that check the bound.
    var usage: (entries: Int, bytes: Int) {
        state.withLock { ($0.slots.count, $0.bytes) }
    }
}
