/// Why the embedding model cannot be used, with a message that names what to fix.
package enum EmbeddingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A model file is missing or unreadable (the message names the file and the setting).
    case missingFile(String)
    /// A file is there but not what it should be (bad header, wrong shape, unknown dtype).
    case invalidModel(String)

    package var description: String {
        switch self {
        case .missingFile(let message), .invalidModel(let message): return message
        }
    }
}
