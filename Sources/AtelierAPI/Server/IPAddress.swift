import Foundation

/// An IP address as 128 bits: IPv6 as written, IPv4 as its IPv4-mapped form (`::ffff:a.b.c.d`),
/// so `127.0.0.1` and `::ffff:127.0.0.1` (how a dual-stack socket shows an IPv4 peer) are one
/// address. Parsed by `inet_pton`: nothing else is an address.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    var high: UInt64
    var low: UInt64

    /// `192.0.2.7`, `2001:db8::1` or `::ffff:192.0.2.7`; nil for anything else (no brackets, no
    /// port, no zone, at most 45 characters).
    package init?<Text: StringProtocol>(_ text: Text) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        let string = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            high = 0
            low = 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, string, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        (high, low) = (0, 0)
        for index in 0..<8 {
            high = high << 8 | UInt64(bytes[index])
            low = low << 8 | UInt64(bytes[index + 8])
        }
    }

    /// Whether this is an IPv4 address (or IPv4-mapped).
    var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The one spelling: dotted for IPv4, compressed lower-case for IPv6.
    package var description: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\(v4 >> 16 & 0xFF).\(v4 >> 8 & 0xFF).\(v4 & 0xFF)"
        }
        var v6 = in6_addr()
        withUnsafeMutableBytes(of: &v6) { bytes in
            for index in 0..<8 {
                bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
                bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
            }
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return inet_ntop(AF_INET6, &v6, &buffer, socklen_t(INET6_ADDRSTRLEN)).map { String(cString: $0) } ?? "::"
    }

    /// The address a forwarding header names for one hop, as proxies write it: `192.0.2.7`,
    /// `192.0.2.7:4711`, `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:4711`, perhaps quoted
    /// (RFC 7239's `for="[2001:db8::1]:4711"`). Nil for `unknown`, an obfuscated `_name` or anything
    /// else that is not an address.
    static func node<Text: StringProtocol>(_ text: Text) -> IPAddress? {
        var node = Substring(text).trimmingCharacters(in: .whitespaces)[...]
        if node.count >= 2, node.first == "\"", node.last == "\"" { node = node.dropFirst().dropLast() }
        if node.first == "[" {
            guard let close = node.firstIndex(of: "]") else { return nil }
            let rest = node[node.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(Self.isDigit)) else { return nil }
            return IPAddress(node[node.index(after: node.startIndex)..<close])
        }
        // One colon: IPv4 and a port. More: IPv6, which carries a port only in brackets.
        if let colon = node.firstIndex(of: ":"), node[node.index(after: colon)...].firstIndex(of: ":") == nil {
            guard node[node.index(after: colon)...].allSatisfy(Self.isDigit) else { return nil }
            return IPAddress(node[..<colon])
        }
        return IPAddress(node)
    }

    private static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }
}

/// An address or a CIDR range of them: `10.0.0.5`, `10.0.0.0/8`, `::1`, `[::1]`, `fd00::/8`.
/// An IPv4 range also holds the IPv4-mapped forms of its addresses.
package struct IPAddressRange: Hashable, Sendable, CustomStringConvertible {
    package let network: IPAddress
    /// Leading bits that must match, of 128 (an IPv4 prefix is counted after the 96 mapped ones).
    let bits: Int

    package init?(_ text: some StringProtocol) {
        var entry = Substring(text).trimmingCharacters(in: .whitespaces)[...]
        var prefix: Int?
        if let slash = entry.lastIndex(of: "/") {
            guard let value = Int(entry[entry.index(after: slash)...]), value >= 0 else { return nil }
            prefix = value
            entry = entry[..<slash]
        }
        if entry.first == "[", entry.last == "]" { entry = entry.dropFirst().dropLast() }
        guard let address = IPAddress(entry) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        let bits = prefix ?? width
        guard bits <= width else { return nil }
        self.bits = bits + (128 - width)
        self.network = Self.masked(address, bits: self.bits)
    }

    package func contains(_ address: IPAddress) -> Bool {
        Self.masked(address, bits: bits) == network
    }

    package var description: String {
        network.isIPv4 ? (bits == 128 ? "\(network)" : "\(network)/\(bits - 96)") : (bits == 128 ? "\(network)" : "\(network)/\(bits)")
    }

    static func masked(_ address: IPAddress, bits: Int) -> IPAddress {
        var masked = address
        let all = ~UInt64(0)
        masked.high &= bits >= 64 ? all : (bits == 0 ? 0 : all << UInt64(64 - bits))
        masked.low &= bits >= 128 ? all : (bits <= 64 ? 0 : all << UInt64(128 - bits))
        return masked
    }
}
