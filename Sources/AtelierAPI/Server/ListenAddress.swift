import Foundation

/// One address the API listens on: `host:port` (`[::1]:8080` for IPv6; port `0` picks a free
/// one). `ATELIER_LISTEN` is one or several, comma-separated (``APIConfiguration/listen``).
package struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, the host in brackets when it is an IPv6 address.
    package var description: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Parses `host:port` (`[::1]:8080` for IPv6).
    package static func parse(_ text: String) -> ListenAddress? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : ListenAddress(host: host, port: port)
    }

    /// Parses a comma-separated list (`0.0.0.0:5005,0.0.0.0:5400`): nil when an entry is not
    /// `host:port`, when there is none, or when one address (other than port 0) is listed twice.
    package static func parseList(_ text: String) -> [ListenAddress]? {
        var addresses: [ListenAddress] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let address = parse(entry.trimmingCharacters(in: .whitespaces)) else { return nil }
            guard address.port == 0 || !addresses.contains(address) else { return nil }
            addresses.append(address)
        }
        return addresses.isEmpty ? nil : addresses
    }
}
