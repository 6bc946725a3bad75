import Foundation

// EmbedFiles OUTPUT FILE… — writes OUTPUT, a Swift file declaring `Migration.files`: each FILE's
// name and its text, verbatim, as a raw string literal. Run by the EmbedMigrations build plugin.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: EmbedFiles OUTPUT FILE…\n".utf8))
    exit(2)
}

/// A raw multi-line literal whose value is exactly `text`: enough `#`s that nothing in the text
/// closes the literal or starts an escape.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    // The newline after the opening and the one before the closing delimiter are not part of
    // the value, so the text (trailing newline included) sits between them unchanged.
    return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
}

var source = """
// Generated at build time by the EmbedMigrations plugin from Migrations/*.sql: do not edit.

extension Migration {
    /// The migration files built into this binary, in file-name order: (file name, contents).
    static let files: [(name: String, sql: String)] = [

"""
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    let text: String
    do {
        text = try String(contentsOf: url, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("EmbedFiles: cannot read \(path) as UTF-8: \(error)\n".utf8))
        exit(1)
    }
    source += "(\"\(url.lastPathComponent)\", \(literal(text))),\n"
}
source += "]\n}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("EmbedFiles: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
