import Foundation

/// A job to enqueue when another job succeeds: "analyse this photo, then index it". The
/// completion statement that records the success inserts the follow-ups in the same statement
/// (`atelier_complete`), so each is enqueued exactly once, never for a job that failed or was
/// cancelled, with the same owner and request id and `parent_id` naming the job that led to it.
/// A follow-up may carry follow-ups of its own.
public struct FollowUp: Sendable, Equatable {
    public var kind: String
    /// JSON object text handed to the follow-up's handler.
    public var payload: String
    public var queue: String
    public var priority: Int
    public var maxAttempts: Int
    public var then: [FollowUp]

    public init(kind: String, payload: String = "{}", queue: String = "default", priority: Int = Priority.normal,
                maxAttempts: Int = 5, then: [FollowUp] = []) {
        self.kind = kind
        self.payload = payload
        self.queue = queue
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.then = then
    }

    func validate() throws(QueueError) {
        try NewJob(kind: kind, payload: payload, queue: queue, priority: priority, maxAttempts: maxAttempts).validate()
        try JobQueue.requireJSONObject(payload, what: "follow-up payload")
        for next in then { try next.validate() }
    }

    /// The `jobs.follow_up` element: `{kind, payload, queue, priority, max_attempts, follow_up?}`.
    var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "kind": kind, "queue": queue, "priority": priority, "max_attempts": maxAttempts,
            "payload": (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) ?? [String: Any](),
        ]
        if !then.isEmpty { object["follow_up"] = then.map(\.jsonObject) }
        return object
    }

    /// The `jobs.follow_up` column's text for a list of follow-ups ("" for none).
    static func columnText(_ followUps: [FollowUp]) -> String {
        guard !followUps.isEmpty,
              let data = try? JSONSerialization.data(withJSONObject: followUps.map(\.jsonObject), options: [.sortedKeys]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
