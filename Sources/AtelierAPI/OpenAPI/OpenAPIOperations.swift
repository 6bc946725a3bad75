/// The operations ``OpenAPIDocument`` describes — path template → methods, upper-case, in the
/// order RFC 9110's `Allow` examples use — read once from the document's own text. The document
/// is written here with one path item per `  /path:` line and one operation per `    method:`
/// line; `ServiceEndpointTests` parses it as YAML and holds it to the routes, so this table is
/// what `/openapi.yaml` says.
enum OpenAPIOperations {
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]

    static let byPath: [String: [String]] = parse(OpenAPIDocument.yaml)

    static func parse(_ yaml: String) -> [String: [String]] {
        var table: [String: [String]] = [:]
        var inPaths = false
        var current: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") {
                inPaths = line == "paths:"
                current = nil
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
                table[current!] = []
            } else if let path = current, line.hasPrefix("    "), !line.hasPrefix("     "),
                      let colon = line.firstIndex(of: ":") {
                let name = line.dropFirst(4)[..<colon].uppercased()
                if methods.contains(name) { table[path]!.append(name) }
            }
        }
        return table.mapValues { found in methods.filter(found.contains) }
    }
}
