import AtelierQueue
import Foundation

/// A job kind the API accepts, with what its requests must carry. The executable registers the
/// kinds whose handlers exist; the API never depends on the worker module.
public struct JobKind: Sendable {
    public enum ImageRule: Sendable { case required, optional, none }

    public var name: String
    public var image: ImageRule
    public var queue: String
    public var priority: Int
    public var maxAttempts: Int
    /// Checks the options (a JSON object) and throws ``APIError/validation(_:field:)`` naming the field.
    public var validate: @Sendable (_ options: [String: Any]) throws -> Void
    /// The same, for kinds whose options depend on whether an image came with them.
    public var validateWithImage: (@Sendable (_ options: [String: Any], _ hasImage: Bool) throws -> Void)?
    /// Turns valid options into the payload the job runs with (e.g. `advisor: "random"` into the
    /// chosen ids, so every attempt does the same work). Identity when nil.
    public var prepare: (@Sendable (_ options: [String: Any]) throws -> [String: Any])?

    public init(name: String, image: ImageRule, queue: String = "default", priority: Int = Priority.normal,
                maxAttempts: Int = 5, validate: @escaping @Sendable (_ options: [String: Any]) throws -> Void = { _ in }) {
        self.name = name
        self.image = image
        self.queue = queue
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.validate = validate
    }
}

/// The kinds this API process accepts, by name.
public struct JobKindCatalog: Sendable {
    private var kinds: [String: JobKind] = [:]

    public init(_ kinds: [JobKind] = []) {
        for kind in kinds { self.kinds[kind.name] = kind }
    }

    public subscript(name: String) -> JobKind? { kinds[name] }
    public var names: [String] { kinds.keys.sorted() }

    /// The diagnostic kinds every worker runs: `noop`, `sleep {ms}`, `fail {message?, permanent?}`
    /// and `echo` (returns its input image unchanged as the result, proving the blob path end to end).
    public static let diagnostics: [JobKind] = [
        JobKind(name: "noop", image: .optional),
        JobKind(name: "sleep", image: .optional) { options in
            guard let ms = options["ms"] as? Int, (0...3_600_000).contains(ms) else {
                throw APIError.validation("options.ms must be a whole number of milliseconds in 0…3600000", field: "options.ms")
            }
        },
        JobKind(name: "fail", image: .optional, maxAttempts: 3),
        JobKind(name: "echo", image: .required),
    ]
}
