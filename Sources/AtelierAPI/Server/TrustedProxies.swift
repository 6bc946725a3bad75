import Foundation
import HTTPTypes

/// `ATELIER_TRUSTED_PROXIES`: the reverse proxies in front of the API, as addresses or CIDR ranges
/// (`10.0.0.5`, `10.0.0.0/8`, `::1`, `fd00::/8`). Only a request whose connection comes from one
/// of them is believed about its client:
///
/// - **who it is** (``client(peer:headers:)``): the right-most address of the forwarding header
///   (`ATELIER_PROXY_HEADER`: `X-Forwarded-For` by default, or RFC 7239's `Forwarded`) that is
///   not itself a trusted proxy. Each proxy appends the address it saw, so that is the last one
///   a proxy of ours wrote; anything a client put further left is its own word, and not read.
///   Logs and every per-address limit (sign-in attempts, anonymous callers, result URLs,
///   unproven tokens, captions) use it;
/// - **how it came** (``saysHTTPS(peer:forwardedProto:)``): the last `X-Forwarded-Proto`.
///
/// A connection from anyone else is its own client, whatever it sends. Empty (the default):
/// no request is believed.
package struct TrustedProxies: Sendable, Equatable {
    /// Which header the proxies write the client's address into. A proxy that writes one passes
    /// the other through as the client sent it, so only the one chosen is read.
    package enum Header: String, Sendable, CaseIterable {
        case xForwardedFor = "x-forwarded-for"
        case forwarded
    }

    package var ranges: [IPAddressRange]
    package var header: Header

    package init(_ ranges: [IPAddressRange] = [], header: Header = .xForwardedFor) {
        self.ranges = ranges
        self.header = header
    }

    package var isEmpty: Bool { ranges.isEmpty }

    /// At most this many hops are walked from the right: a longer chain ends at the last one.
    static let maxHops = 32

    /// Parses the comma-separated setting; nil when an entry is not an address or CIDR range.
    package static func parse(_ text: String, header: Header = .xForwardedFor) -> TrustedProxies? {
        var ranges: [IPAddressRange] = []
        for item in text.split(separator: ",") where !item.allSatisfy(\.isWhitespace) {
            guard let range = IPAddressRange(item) else { return nil }
            if !ranges.contains(range) { ranges.append(range) }
        }
        return TrustedProxies(ranges, header: header)
    }

    package func trusts(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The client's address for a request whose connection comes from `peer` (the socket's
    /// address, as written): `peer` itself unless it is a trusted proxy; else the right-most
    /// address of the forwarding header that is not one. A hop that names no address
    /// (`unknown`, an obfuscated name, garbage) ends the walk at the proxy that wrote it, and a
    /// chain of trusted proxies only ends at its left-most.
    package func client(peer: String, headers: HTTPFields) -> String {
        guard !ranges.isEmpty, let address = IPAddress(peer), trusts(address) else { return peer }
        var client = address
        let hops = self.hops(in: headers)
        for hop in hops.reversed().prefix(Self.maxHops) {
            guard let hop else { break }
            client = hop
            if !trusts(hop) { break }
        }
        return client.description
    }

    /// The hops the chosen header names, left to right, across all its lines (nil: not an address).
    func hops(in headers: HTTPFields) -> [IPAddress?] {
        switch header {
        case .xForwardedFor:
            return headers[values: Self.xForwardedFor].flatMap { $0.split(separator: ",").map(IPAddress.node) }
        case .forwarded:
            return headers[values: Self.forwarded].flatMap { line in
                line.split(separator: ",").map { element in
                    // `for=` of each element (`for=192.0.2.7;proto=https;by=…`); none: not an address.
                    let pairs = element.split(separator: ";")
                    guard let pair = pairs.first(where: { $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("for=") }),
                          let equals = pair.firstIndex(of: "=") else { return nil }
                    return IPAddress.node(pair[pair.index(after: equals)...])
                }
            }
        }
    }

    /// Whether the client reached a trusted proxy over https: the connection comes from a listed
    /// address and its last `X-Forwarded-Proto` says `https`.
    package func saysHTTPS(peer: String, forwardedProto: String?) -> Bool {
        guard let address = IPAddress(peer.hasPrefix("[") && peer.hasSuffix("]") ? String(peer.dropFirst().dropLast()) : peer),
              trusts(address), let forwardedProto else { return false }
        // A chain of proxies appends: the last value is what the nearest one saw.
        let last = forwardedProto.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return last == "https"
    }

    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!
}
