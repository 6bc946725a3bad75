import AtelierQueue
import Foundation

/// JSON for scripts (`--json`): stable keys, ISO-8601 times, nested JSON kept as JSON.
enum JSONOutput {
    static func print(_ object: Any) {
        let data = (try? JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])) ?? Data("null".utf8)
        Swift.print(String(decoding: data, as: UTF8.self))
    }

    static func time(_ date: Date?) -> Any {
        guard let date else { return NSNull() }
        return iso8601.string(from: date)
    }

    static func value(_ optional: Any?) -> Any { optional ?? NSNull() }

    /// Parses JSON text into an object for embedding; falls back to the text.
    static func embedded(_ text: String?) -> Any {
        guard let text else { return NSNull() }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? text
    }

    nonisolated(unsafe) static let iso8601: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    static func job(_ job: Job) -> [String: Any] {
        [
            "id": job.id.uuidString.lowercased(), "kind": job.kind, "queue": job.queue, "state": job.state.rawValue,
            "priority": job.priority, "owner": job.owner, "payload": embedded(job.payload), "result": embedded(job.result),
            "error": value(job.error), "errors": embedded(job.errors), "attempt": job.attempt, "max_attempts": job.maxAttempts,
            "crashes": job.crashes, "crash_streak": job.crashStreak, "run_alone": job.runAlone, "snoozes": job.snoozes, "snooze_streak": job.snoozeStreak,
            "run_at": time(job.runAt), "lease_owner": value(job.leaseOwner), "lease_expires_at": time(job.leaseExpiresAt),
            "progress": job.progress, "progress_step": value(job.progressStep), "cancel_requested": job.cancelRequested,
            "idempotency_key": value(job.idempotencyKey), "request_id": value(job.requestID),
            "parent_id": value(job.parentID?.uuidString.lowercased()), "follow_up": embedded(job.followUp),
            "created_at": time(job.createdAt), "updated_at": time(job.updatedAt),
            "started_at": time(job.startedAt), "finished_at": time(job.finishedAt),
        ]
    }

    static func event(_ event: JobEvent) -> [String: Any] {
        ["id": event.id, "type": event.type, "data": embedded(event.data), "at": time(event.createdAt)]
    }
}
