import AtelierQueue
import Foundation

/// Mondrian's `job_data` (docs/contracts.md §2): `{status, progress_percentage, current_step?,
/// current_advisor?, total_advisors?, step_phase?}`, plus `error` when the job failed.
///
/// `status`: `queued` (waiting, or waiting to retry), `analyzing` (an analysis running;
/// `indexing` / `processing` for other kinds), `completed`, `failed` (cancelled jobs too).
/// `step_phase`: `queued`, `retrying`, `starting`, the phase the handler reports
/// (`analyzing`, `finalizing`), `completed`, `failed`.
struct MondrianJobData: Encodable, Equatable {
    var status: String
    var progress_percentage: Int
    var current_step: String?
    var current_advisor: Int?
    var total_advisors: Int?
    var step_phase: String?
    var error: String?

    /// What stays the same for one job across its updates.
    struct Facts {
        var kind: String
        var totalAdvisors: Int?

        init(_ job: Job) {
            kind = job.kind
            totalAdvisors = MondrianUpload(job).flatMap { $0.advisors.isEmpty ? nil : $0.advisors.count }
        }

        var runningStatus: String {
            switch kind {
            case "analysis": return "analyzing"
            case "index": return "indexing"
            default: return "processing"
            }
        }

        var completedStep: String { kind == "analysis" ? "Analysis complete" : "Complete" }
    }

    static func queued(_ facts: Facts, step: String = "Waiting for a worker", phase: String = "queued") -> MondrianJobData {
        MondrianJobData(status: "queued", progress_percentage: 0, current_step: step, total_advisors: facts.totalAdvisors, step_phase: phase)
    }

    static func completed(_ facts: Facts) -> MondrianJobData {
        MondrianJobData(status: "completed", progress_percentage: 100, current_step: facts.completedStep,
                        current_advisor: facts.totalAdvisors, total_advisors: facts.totalAdvisors, step_phase: "completed")
    }

    static func failed(_ facts: Facts, progress: Int, error: String?) -> MondrianJobData {
        MondrianJobData(status: "failed", progress_percentage: progress, current_step: "Failed", total_advisors: facts.totalAdvisors,
                        step_phase: "failed", error: error ?? "the job failed")
    }

    /// A `progress` event's data: `{progress, step, current_advisor?, total_advisors?, step_phase?}`.
    static func running(_ facts: Facts, progressData: [String: Any]?, fallbackProgress: Int = 0) -> MondrianJobData {
        MondrianJobData(status: facts.runningStatus, progress_percentage: progressData?["progress"] as? Int ?? fallbackProgress,
                        current_step: progressData?["step"] as? String ?? "Starting",
                        current_advisor: progressData?["current_advisor"] as? Int,
                        total_advisors: progressData?["total_advisors"] as? Int ?? facts.totalAdvisors,
                        step_phase: progressData?["step_phase"] as? String ?? (progressData == nil ? "starting" : facts.runningStatus))
    }

    /// The update one job event means, or nil for events that change nothing the app shows.
    /// `last` is the previous update (a `running` event keeps its progress).
    static func update(for event: JobEvent, facts: Facts, last: MondrianJobData?) -> MondrianJobData? {
        let data = object(event.data)
        switch event.type {
        case "progress":
            return .running(facts, progressData: data ?? [:])
        case "running":
            return .running(facts, progressData: nil, fallbackProgress: last?.progress_percentage ?? 0)
        case "retrying":
            return .queued(facts, step: "Retrying: \(data?["error"] as? String ?? "the attempt failed")", phase: "retrying")
        case "requeued":
            return .queued(facts)
        case "succeeded":
            return .completed(facts)
        case "failed", "cancelled":
            return .failed(facts, progress: last?.progress_percentage ?? 0, error: data?["error"] as? String ?? data?["reason"] as? String)
        default:
            return nil
        }
    }

    static func object(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }
}

extension MondrianJobData {
    /// The job as it stands: its row, and its newest `progress` event for the step's detail.
    init(job: Job, latestProgress: JobEvent?) {
        let facts = Facts(job)
        switch job.state {
        case .queued:
            self = job.attempt > 0 ? .queued(facts, step: "Retrying: \(job.error ?? "waiting for a worker")", phase: "retrying") : .queued(facts)
        case .running:
            self = .running(facts, progressData: latestProgress.flatMap { Self.object($0.data) }, fallbackProgress: job.progress)
        case .succeeded:
            self = .completed(facts)
        case .failed, .cancelled:
            self = .failed(facts, progress: job.progress, error: job.error)
        }
    }
}
