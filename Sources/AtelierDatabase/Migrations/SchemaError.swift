/// The database's schema does not match this build of Atelier: older (run `atelier migrate`)
/// or newer (upgrade atelier). The message says which and what to do.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
