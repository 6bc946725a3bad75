/// What ``Worker/run()`` throws after it abandoned a handler that did not stop when told: the
/// process drained and should be replaced — the supervisor of `atelier work --processes P`
/// starts a new one; a lone `atelier work` exits with status 75 for its service manager to
/// restart. The abandoned task may still hold a thread of the worker's pool or a connection.
public struct WorkerRecycled: Error, CustomStringConvertible {
    public let kind: String
    public let grace: Duration

    public var description: String {
        "a \(kind) handler did not stop within \(grace) of being told to; its job was handed back and this worker process exits to be replaced"
    }
}
