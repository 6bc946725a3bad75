/// The life of a job: `queued → running → succeeded | failed | cancelled`,
/// and `running → queued` again for retries, rescued leases and drained workers.
public enum JobState: String, Sendable, Codable, CaseIterable {
    case queued
    case running
    case succeeded
    case failed
    case cancelled

    public var isFinished: Bool {
        switch self {
        case .succeeded, .failed, .cancelled: return true
        case .queued, .running: return false
        }
    }

    public static let finished: [JobState] = [.succeeded, .failed, .cancelled]

    public static func parse(_ text: String) throws(QueueError) -> JobState {
        guard let state = JobState(rawValue: text.lowercased()) else {
            throw .invalidArgument("unknown state '\(text)'; states are \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return state
    }
}
