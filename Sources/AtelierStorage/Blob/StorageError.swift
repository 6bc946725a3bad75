/// What can go wrong with blobs, with a message fit for an API error body or a log line.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key that is malformed or tries to leave the store (`..`, absolute, hidden).
    case invalidKey(String)
    case notFound(String)
    /// The store cannot be read or written (disk full, permissions …).
    case unavailable(String)
    /// A setting is missing or unusable (data directory, signing secret).
    case configuration(String)

    public var message: String {
        switch self {
        case .invalidKey(let m), .notFound(let m), .unavailable(let m), .configuration(let m): return m
        }
    }

    public var description: String { message }
}

extension StorageError {
    /// The store itself failed (unreachable, erroring, refusing our keys), as opposed to a bad
    /// key or a missing blob: the same request may well succeed later.
    public var isOutage: Bool {
        switch self {
        case .unavailable, .configuration: return true
        case .invalidKey, .notFound: return false
        }
    }
}
