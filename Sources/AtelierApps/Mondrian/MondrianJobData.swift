import AtelierAPI
import AtelierJobs
import AtelierQueue
import Foundation

/// Mondrian's `job_data` (docs/clients.md §2): `{status, progress_percentage, current_step?,
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
    static func running(_ facts: Facts, progressData: EventData?, fallbackProgress: Int = 0) -> MondrianJobData {
        MondrianJobData(status: facts.runningStatus, progress_percentage: progressData?.progress ?? fallbackProgress,
                        current_step: progressData?.step ?? "Starting",
                        current_advisor: progressData?.currentAdvisor,
                        total_advisors: progressData?.totalAdvisors ?? facts.totalAdvisors,
                        step_phase: progressData?.stepPhase ?? (progressData == nil ? "starting" : facts.runningStatus))
    }

    /// The update one job event means, or nil for events that change nothing the app shows.
    /// `last` is the previous update (a `running` event keeps its progress).
    static func update(for event: JobEvent, facts: Facts, last: MondrianJobData?) -> MondrianJobData? {
        let data = EventData.of(event.data)
        switch event.type {
        case "progress":
            return .running(facts, progressData: data ?? EventData())
        case "running":
            return .running(facts, progressData: nil, fallbackProgress: last?.progress_percentage ?? 0)
        case "retrying":
            return .queued(facts, step: "Retrying: \(data?.error ?? "the attempt failed")", phase: "retrying")
        case "requeued":
            return .queued(facts)
        case "succeeded":
            return .completed(facts)
        case "failed", "cancelled":
            return .failed(facts, progress: last?.progress_percentage ?? 0, error: data?.error ?? data?.reason)
        default:
            return nil
        }
    }

    /// What Mondrian reads from a job event's data: a `progress` event's percentage and step
    /// (with an analysis's ``AnalysisJob/Progress`` merged in), a failure's `error`, a
    /// cancellation's `reason`. A field that is absent or of another type is nil.
    struct EventData: Decodable, Equatable {
        var progress: Int?
        var step: String?
        var currentAdvisor: Int?
        var totalAdvisors: Int?
        var stepPhase: String?
        var error: String?
        var reason: String?

        init() {}

        enum CodingKeys: String, CodingKey {
            case progress, step, error, reason
            case currentAdvisor = "current_advisor", totalAdvisors = "total_advisors", stepPhase = "step_phase"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            progress = try? c.decodeIfPresent(Int.self, forKey: .progress)
            step = try? c.decodeIfPresent(String.self, forKey: .step)
            currentAdvisor = try? c.decodeIfPresent(Int.self, forKey: .currentAdvisor)
            totalAdvisors = try? c.decodeIfPresent(Int.self, forKey: .totalAdvisors)
            stepPhase = try? c.decodeIfPresent(String.self, forKey: .stepPhase)
            error = try? c.decodeIfPresent(String.self, forKey: .error)
            reason = try? c.decodeIfPresent(String.self, forKey: .reason)
        }

        /// The data of an event; nil when it is not a JSON object.
        static func of(_ text: String) -> EventData? {
            try? ContractJSON.decode(EventData.self, from: text)
        }
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
            self = .running(facts, progressData: latestProgress.flatMap { EventData.of($0.data) }, fallbackProgress: job.progress)
        case .succeeded:
            self = .completed(facts)
        case .failed, .cancelled:
            self = .failed(facts, progress: job.progress, error: job.error)
        }
    }
}
