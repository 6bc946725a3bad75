import Foundation

/// What makes a job unique (``NewJob/unique``): while a job of the same owner, kind and `key`
/// is queued or running, or finished less than `period` ago, enqueueing another returns that
/// job instead (``EnqueuedJob/duplicate``).
public struct UniqueJob: Sendable, Equatable {
    /// 1–255 characters; the API defaults it to a hash of the kind and the request's input.
    public var key: String
    /// How long after a job finished an equal one is still a duplicate (1 s … ``maxPeriod``).
    public var period: Duration

    public static let defaultPeriod = Duration.seconds(600)
    public static let maxPeriod = Duration.seconds(30 * 86_400)

    public init(key: String, period: Duration = UniqueJob.defaultPeriod) {
        self.key = key
        self.period = period
    }

    func validate() throws(QueueError) {
        guard !key.isEmpty, key.unicodeScalars.count <= 255 else { throw .invalidArgument("unique key must be 1–255 characters") }
        guard period >= .seconds(1), period <= Self.maxPeriod else {
            throw .invalidArgument("unique period must be between 1 second and 30 days, got \(period)")
        }
    }
}
