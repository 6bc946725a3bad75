/// A lane had no room: its running places and its line were full. The API answers `503` with
/// `Retry-After`, naming the lane; nothing was done.
package struct LaneFullError: Error, Sendable, Equatable {
    package let lane: String
    package let retryAfterSeconds: Int

    package init(lane: String, retryAfterSeconds: Int) {
        self.lane = lane
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// For the client.
    package var message: String {
        "the server is busy with \(lane) right now; try again in \(retryAfterSeconds) s"
    }
}
