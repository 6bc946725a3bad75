/// A setting is missing or malformed: an `ATELIER_*` variable, a command-line flag, or a file
/// or directory a setting names. The message is for the person who started the process: it
/// names the setting and says what a good value looks like. The CLI prints it and exits with 78.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
