/// Splits a SQL script into statements at top-level semicolons.
///
/// PostgresNIO speaks only the extended query protocol, which runs one statement per
/// message, so a migration file is sent statement by statement (inside one transaction).
/// Understands `--` and `/* */` comments, 'strings', "identifiers" and $tag$ dollar quotes$tag$.
package enum SQLScript {
    package static func statements(in script: String) -> [String] {
        let chars = Array(script.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0

        func flush() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty && !isOnlyComments(text) { statements.append(text) }
            current = String.UnicodeScalarView()
        }

        while index < chars.count {
            let c = chars[index]
            let next: Unicode.Scalar? = index + 1 < chars.count ? chars[index + 1] : nil
            switch c {
            case "-" where next == "-":
                while index < chars.count, chars[index] != "\n" { current.append(chars[index]); index += 1 }
                continue
            case "/" where next == "*":
                var depth = 0
                repeat {
                    if chars[index] == "/", index + 1 < chars.count, chars[index + 1] == "*" {
                        depth += 1; current.append("/"); current.append("*"); index += 2; continue
                    }
                    if chars[index] == "*", index + 1 < chars.count, chars[index + 1] == "/" {
                        depth -= 1; current.append("*"); current.append("/"); index += 2; continue
                    }
                    current.append(chars[index]); index += 1
                } while depth > 0 && index < chars.count
                continue
            case "'", "\"":
                current.append(c); index += 1
                while index < chars.count {
                    current.append(chars[index])
                    if chars[index] == c {
                        if index + 1 < chars.count, chars[index + 1] == c {   // doubled quote
                            current.append(c); index += 2; continue
                        }
                        index += 1; break
                    }
                    index += 1
                }
                continue
            case "$":
                if let tag = dollarTag(chars, at: index) {
                    current.append(contentsOf: tag); index += tag.count
                    while index < chars.count {
                        if chars[index] == "$", matches(chars, at: index, tag) {
                            current.append(contentsOf: tag); index += tag.count; break
                        }
                        current.append(chars[index]); index += 1
                    }
                    continue
                }
            case ";":
                flush(); index += 1
                continue
            default:
                break
            }
            current.append(c); index += 1
        }
        flush()
        return statements
    }

    /// `$$` or `$name$` starting at `index`, or nil (a `$1` parameter is not a tag).
    private static func dollarTag(_ chars: [Unicode.Scalar], at index: Int) -> [Unicode.Scalar]? {
        var end = index + 1
        while end < chars.count, chars[end] == "_" || chars[end].properties.isAlphabetic
                || (end > index + 1 && ("0"..."9").contains(chars[end])) {
            end += 1
        }
        guard end < chars.count, chars[end] == "$" else { return nil }
        return Array(chars[index...end])
    }

    private static func matches(_ chars: [Unicode.Scalar], at index: Int, _ tag: [Unicode.Scalar]) -> Bool {
        guard index + tag.count <= chars.count else { return false }
        for offset in 0..<tag.count where chars[index + offset] != tag[offset] { return false }
        return true
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return line.isEmpty || line.hasPrefix("--")
        }
    }
}
