import AtelierJobs
import AtelierStorage
import Synchronization

/// Variants that cannot be made, remembered per API process, so a broken photo costs one render
/// in a worker and then nothing: its URL answers the worker's verdict (413, 422, 404) at once,
/// from memory, however many clients ask. The verdict itself lives with the failed `variant` job
/// (``AtelierJobs/VariantJob``), which a later enqueue of the same variant finds (it is unique for
/// a day), so another API process learns it in one enqueue without a render.
///
/// At most `capacity` (4,096) entries: when full it is emptied, and the next requests learn
/// again from the jobs. Each lives `ttl` (60 s) at most, as the memory tier does.
final class VariantFailures: Sendable {
    private struct Entry {
        var failure: VariantJob.Failure
        var expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    let capacity: Int
    let ttl: Duration

    init(capacity: Int = 4096, ttl: Duration = .seconds(60)) {
        (self.capacity, self.ttl) = (capacity, ttl)
    }

    func lookup(_ key: BlobKey, now: ContinuousClock.Instant = .now) -> VariantJob.Failure? {
        entries.withLock { entries in
            guard let entry = entries[key.path] else { return nil }
            guard entry.expires > now else {
                entries.removeValue(forKey: key.path)
                return nil
            }
            return entry.failure
        }
    }

    func store(_ failure: VariantJob.Failure, for key: BlobKey, now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key.path] = Entry(failure: failure, expires: now + ttl)
        }
    }
}

extension VariantJob.Failure {
    /// The answer a variant URL gives for this failure.
    var apiError: APIError {
        switch status {
        case 404: return .notFound(message)
        case 413: return APIError(.contentTooLarge, "PayloadTooLargeError", message)
        default: return APIError(.unprocessableContent, "UnreadableImageError", message)
        }
    }
}
