/// A lane had no room: its running places and its line were full. The API answers `503` with
/// `Retry-After`, naming the lane; nothing was done.
public struct LaneFullError: Error, Sendable, Equatable {
    public let lane: String
    public let retryAfterSeconds: Int

    public init(lane: String, retryAfterSeconds: Int) {
        self.lane = lane
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// For the client.
    public var message: String {
        "the server is busy with \(lane) right now; try again in \(retryAfterSeconds) s"
    }
}
