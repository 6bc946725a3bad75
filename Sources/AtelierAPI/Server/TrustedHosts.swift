import Foundation

/// `ATELIER_TRUSTED_HOSTS`: the names and addresses (`192.168.1.20`, `atelier.local`,
/// `[fe80::1]`, each with an optional `:port`) a request's `Host` may carry for the absolute URLs
/// in its answer to be built on it (``PublicBaseURL``). An entry without a port matches any port.
/// A `Host` is used only when it is well formed — a host name, an IPv4 address or a bracketed
/// IPv6 address, then at most a port: no user info, path, query, spaces, nor more than 261
/// characters — and listed; then only its lower-cased form is ever written into an answer.
package struct TrustedHosts: Sendable, Equatable {
    package struct Entry: Sendable, Equatable, CustomStringConvertible {
        package var host: String
        package var port: Int?

        package var description: String {
            let shown = host.contains(":") ? "[\(host)]" : host
            return port.map { "\(shown):\($0)" } ?? shown
        }
    }

    package var entries: [Entry]

    package init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    package var isEmpty: Bool { entries.isEmpty }

    /// Parses the comma-separated setting; nil when an entry is not `host[:port]`.
    package static func parse(_ text: String) -> TrustedHosts? {
        var entries: [Entry] = []
        for item in text.split(separator: ",") {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let (host, port) = authority(String(trimmed)) else { return nil }
            entries.append(Entry(host: host, port: port))
        }
        return TrustedHosts(entries)
    }

    /// `authority` (a request's `Host`) as it may be written into an answer, lower-cased, when it
    /// is well formed and listed; nil otherwise.
    package func match(_ authority: String?) -> String? {
        guard !entries.isEmpty, let authority, let (host, port) = Self.authority(authority) else { return nil }
        guard entries.contains(where: { $0.host == host && ($0.port == nil || $0.port == port) }) else { return nil }
        return Entry(host: host, port: port).description
    }

    /// Splits a well-formed `host[:port]` into the lower-cased host (IPv6 without brackets) and
    /// the port; nil for anything else.
    static func authority(_ text: String) -> (host: String, port: Int?)? {
        guard !text.isEmpty, text.utf8.count <= 261 else { return nil }
        let lowered = text.lowercased()
        let host: Substring
        let rest: Substring
        if lowered.hasPrefix("[") {
            guard let close = lowered.firstIndex(of: "]") else { return nil }
            host = lowered[lowered.index(after: lowered.startIndex)..<close]
            rest = lowered[lowered.index(after: close)...]
            guard !host.isEmpty, host.contains(":"), host.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else { return nil }
        } else {
            let colon = lowered.firstIndex(of: ":") ?? lowered.endIndex
            host = lowered[..<colon]
            rest = lowered[colon...]
            guard !host.isEmpty, host.utf8.count <= 253, host.first != ".", host.first != "-",
                  host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "." || $0 == "-" }) else { return nil }
        }
        if rest.isEmpty { return (String(host), nil) }
        let digits = rest.dropFirst()
        guard rest.first == ":", (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(digits), (1...65535).contains(port) else { return nil }
        return (String(host), port)
    }
}
