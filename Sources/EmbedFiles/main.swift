import Foundation

// Writes a Swift file that carries data files (SQL, YAML, JS, CSS …) verbatim, as raw string
// literals, so the binary never looks for them on disk. Run by the EmbedAssets build plugin:
//
//   EmbedFiles OUTPUT each TYPE ROOT FILE…
//       `enum TYPE { static let NAME: String }`, one NAME per FILE: its file name in lower camel
//       case (`openapi.yaml` → `openapiYaml`, `console.js` → `consoleJs`, `0001_queue.sql` →
//       `_0001QueueSql`), and `static let files`: each FILE's path under the folder ROOT with its
//       NAME's text, in the order given (the migration lines and the queue's definitions are read
//       from `files`).

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("EmbedFiles: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 4, arguments[1] == "each" else {
    fail("usage: EmbedFiles OUTPUT each TYPE ROOT FILE…", status: 2)
}
let (output, declaration) = (arguments[0], arguments[2])
let root = URL(fileURLWithPath: arguments[3]).standardizedFileURL.path + "/"
let files = arguments.dropFirst(4).map { URL(fileURLWithPath: $0) }

/// A raw multi-line literal whose value is exactly `text`: enough `#`s that nothing in the text
/// closes the literal or starts an escape.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    // The newline after the opening and the one before the closing delimiter are not part of
    // the value, so the text (trailing newline included) sits between them unchanged.
    return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
}

func text(of url: URL) -> String {
    do {
        return try String(contentsOf: url, encoding: .utf8)
    } catch {
        fail("cannot read \(url.path) as UTF-8: \(error)")
    }
}

/// `console.css` → `consoleCss`: the words between non-alphanumerics, the first as it is, the
/// others capitalised; `_` before a name that would start with a digit (`0001_queue.sql`).
func propertyName(_ file: String) -> String {
    let words = file.split { !$0.isLetter && !$0.isNumber }.map(String.init)
    guard let first = words.first else { fail("\(file): a file name must have a letter or a digit") }
    let name = first + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    return first.first?.isNumber == true ? "_" + name : name
}

var source = "// Generated at build time by EmbedFiles from \(files.map(\.lastPathComponent).joined(separator: ", ")): do not edit.\n\n"
source += "enum \(declaration) {\n"
var seen: Set<String> = ["files"]   // taken by the list below
var paths: [(path: String, name: String)] = []
for url in files {
    let name = propertyName(url.lastPathComponent)
    guard seen.insert(name).inserted else { fail("two files would both be \(declaration).\(name)") }
    let path = url.standardizedFileURL.path
    guard path.hasPrefix(root) else { fail("\(path) is not under \(root)") }
    paths.append((String(path.dropFirst(root.count)), name))
    source += "    /// \(url.lastPathComponent), verbatim.\n"
    source += "    static let `\(name)` = \(literal(text(of: url)))\n"  // `…`: a name may be a keyword
}
source += "    /// Every file above: its path under the target's folder, and its text.\n"
source += "    static let files: [(path: String, text: String)] = [\n"
for (path, name) in paths { source += "        (\"\(path)\", `\(name)`),\n" }
source += "    ]\n}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    fail("cannot write \(output): \(error)")
}
