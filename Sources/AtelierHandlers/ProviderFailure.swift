import AtelierVision
import AtelierWorker
import Logging

/// A vision provider's failure as a job failure: the job's error (shown to its client) says
/// which provider failed and how in our words; what the provider itself answered goes to the
/// worker's log only.
enum ProviderFailure {
    static func job(_ error: VisionError, provider: String, logger: Logger) -> JobFailure {
        if let detail = error.detail {
            logger.warning("vision provider failed", metadata: ["provider": "\(provider)", "detail": "\(detail)"])
        }
        return .transient("the \(provider) provider failed: \(error.description)")
    }
}
