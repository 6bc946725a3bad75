import Synchronization

/// The base of every absolute URL the API hands out. `ATELIER_PUBLIC_URL` when set; otherwise
/// the listen address, filled in with the real port once the server is bound (`:0` picks a
/// free port, as tests and benchmarks do).
public final class PublicBaseURL: Sendable {
    private let storage: Mutex<String>

    init(_ value: String) {
        storage = Mutex(value)
    }

    public var value: String { storage.withLock { $0 } }

    func set(_ value: String) {
        storage.withLock { $0 = value }
    }
}
