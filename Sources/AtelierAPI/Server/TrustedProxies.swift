import Foundation

/// `ATELIER_TRUSTED_PROXIES`: the addresses of the reverse proxies in front of the API (a TLS
/// terminator: `10.0.0.5`, `::1`). Only a request whose connection comes from one of them is
/// believed about how the client reached the proxy (`X-Forwarded-Proto`); anyone else can send
/// that header. Empty (the default): no request is believed.
public struct TrustedProxies: Sendable, Equatable {
    public var addresses: Set<String>

    public init(_ addresses: Set<String> = []) {
        self.addresses = addresses
    }

    /// Parses the comma-separated setting; nil when an entry is not an IPv4 or IPv6 address.
    public static func parse(_ text: String) -> TrustedProxies? {
        var addresses = Set<String>()
        for item in text.split(separator: ",") {
            let entry = item.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty { continue }
            guard let address = normalized(entry) else { return nil }
            addresses.insert(address)
        }
        return TrustedProxies(addresses)
    }

    /// Whether the client reached a trusted proxy over https: the connection comes from a listed
    /// address and its last `X-Forwarded-Proto` says `https`.
    public func saysHTTPS(peer: String, forwardedProto: String?) -> Bool {
        guard let address = Self.normalized(peer), addresses.contains(address), let forwardedProto else { return false }
        // A chain of proxies appends: the last value is what the nearest one saw.
        let last = forwardedProto.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return last == "https"
    }

    /// The address in one spelling (IPv6 compressed, lower-case), or nil for anything else.
    static func normalized(_ text: String) -> String? {
        var trimmed = text
        if trimmed.hasPrefix("["), trimmed.hasSuffix("]") { trimmed = String(trimmed.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            return inet_ntop(AF_INET, &v4, &buffer, socklen_t(INET_ADDRSTRLEN)).map { String(cString: $0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, trimmed, &v6) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            return inet_ntop(AF_INET6, &v6, &buffer, socklen_t(INET6_ADDRSTRLEN)).map { String(cString: $0) }
        }
        return nil
    }
}
