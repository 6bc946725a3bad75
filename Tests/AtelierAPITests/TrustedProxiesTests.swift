@testable import AtelierAPI
import HTTPTypes
import XCTest

/// `ATELIER_TRUSTED_PROXIES`: which connections are believed about the client — its address and
/// its scheme. Through a real nginx: ``ProxiedClientsTests``.
final class TrustedProxiesTests: XCTestCase {
    func testOnlyListedProxiesAreBelievedAboutTheScheme() {
        let proxies = TrustedProxies.parse("10.0.0.5, [::1]")
        XCTAssertEqual(proxies?.ranges.map(\.description), ["10.0.0.5", "::1"])
        XCTAssertNil(TrustedProxies.parse("proxy.local"), "names are not addresses")
        let trusted = try! XCTUnwrap(proxies)
        XCTAssertTrue(trusted.saysHTTPS(peer: "10.0.0.5", forwardedProto: "https"))
        XCTAssertTrue(trusted.saysHTTPS(peer: "0:0:0:0:0:0:0:1", forwardedProto: "http, HTTPS"), "the nearest proxy's word, in any spelling")
        XCTAssertFalse(trusted.saysHTTPS(peer: "10.0.0.6", forwardedProto: "https"), "anyone else's header is not believed")
        XCTAssertFalse(trusted.saysHTTPS(peer: "10.0.0.5", forwardedProto: "https, http"))
        XCTAssertFalse(trusted.saysHTTPS(peer: "10.0.0.5", forwardedProto: nil))
        XCTAssertFalse(TrustedProxies().saysHTTPS(peer: "127.0.0.1", forwardedProto: "https"), "none listed: none believed")
    }

    func testRangesAreParsedAndMatched() throws {
        let proxies = try XCTUnwrap(TrustedProxies.parse("10.0.0.0/8, 192.168.1.7, fd00::/8, 172.16.0.0/12"))
        XCTAssertEqual(proxies.ranges.map(\.description), ["10.0.0.0/8", "192.168.1.7", "fd00::/8", "172.16.0.0/12"])
        for inside in ["10.255.3.4", "::ffff:10.1.2.3", "192.168.1.7", "fd12:3456::1", "172.31.255.255"] {
            XCTAssertTrue(proxies.trusts(try XCTUnwrap(IPAddress(inside))), inside)
        }
        for outside in ["11.0.0.1", "192.168.1.8", "fe80::1", "172.32.0.1", "::1", "::a00:1"] {
            XCTAssertFalse(proxies.trusts(try XCTUnwrap(IPAddress(outside))), outside)
        }
        XCTAssertEqual(TrustedProxies.parse("10.1.2.3/8")?.ranges.first?.description, "10.0.0.0/8", "host bits are dropped")
        XCTAssertEqual(TrustedProxies.parse("0.0.0.0/0").map { $0.trusts(IPAddress("203.0.113.9")!) }, true)
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/", "10.0.0.1:80", "10.0.0", "*"] {
            XCTAssertNil(TrustedProxies.parse(bad), bad)
        }
    }

    func testTheClientIsTheRightMostAddressNoTrustedProxyWrote() throws {
        let proxies = try XCTUnwrap(TrustedProxies.parse("127.0.0.1, 10.0.0.0/8"))
        func client(_ peer: String, _ forwardedFor: [String]) -> String {
            var headers = HTTPFields()
            for line in forwardedFor { headers.append(HTTPField(name: TrustedProxies.xForwardedFor, value: line)) }
            return proxies.client(peer: peer, headers: headers)
        }
        XCTAssertEqual(client("203.0.113.5", ["198.51.100.1"]), "203.0.113.5", "not a proxy: its header is not read")
        XCTAssertEqual(client("127.0.0.1", []), "127.0.0.1", "a proxy that names nobody is the client")
        XCTAssertEqual(client("127.0.0.1", ["198.51.100.1"]), "198.51.100.1")
        XCTAssertEqual(client("::ffff:127.0.0.1", ["198.51.100.1"]), "198.51.100.1", "a dual-stack socket's spelling")
        XCTAssertEqual(client("127.0.0.1", ["192.0.2.66, 198.51.100.1"]), "198.51.100.1", "what the client sent is left of it")
        XCTAssertEqual(client("127.0.0.1", ["192.0.2.66", "198.51.100.1, 10.0.0.7"]), "198.51.100.1",
                       "every header line, in order, through a chain of trusted proxies")
        XCTAssertEqual(client("127.0.0.1", ["10.0.0.9, 10.0.0.7"]), "10.0.0.9", "only proxies: the left-most")
        XCTAssertEqual(client("127.0.0.1", ["198.51.100.1, unknown"]), "127.0.0.1", "a hop without an address stops at its proxy")
        XCTAssertEqual(client("127.0.0.1", ["198.51.100.1, 10.0.0.7, garbage"]), "127.0.0.1")
        XCTAssertEqual(client("127.0.0.1", ["198.51.100.1:4711"]), "198.51.100.1", "a port is dropped")
        XCTAssertEqual(client("127.0.0.1", ["[2001:DB8::1]:4711"]), "2001:db8::1", "one spelling of IPv6")
        XCTAssertEqual(client("127.0.0.1", ["2001:db8:0:0::1"]), "2001:db8::1")
        XCTAssertEqual(client("127.0.0.1", ["::ffff:198.51.100.1"]), "198.51.100.1", "IPv4-mapped is IPv4")
        let chain = (0..<100).map { "10.0.0.\($0 % 250)" }.joined(separator: ", ")
        XCTAssertEqual(client("127.0.0.1", ["198.51.100.1, " + chain]), "10.0.0.\(68 % 250)",
                       "a longer chain than \(TrustedProxies.maxHops) hops ends at the last one walked")
    }

    func testForwardedIsReadOnlyWhenChosen() throws {
        let forwarded = try XCTUnwrap(TrustedProxies.parse("127.0.0.1", header: .forwarded))
        let byXFF = try XCTUnwrap(TrustedProxies.parse("127.0.0.1"))
        var headers = HTTPFields()
        headers.append(HTTPField(name: TrustedProxies.forwarded, value: #"for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711""#))
        headers.append(HTTPField(name: TrustedProxies.xForwardedFor, value: "198.51.100.9"))
        XCTAssertEqual(forwarded.client(peer: "127.0.0.1", headers: headers), "2001:db8:cafe::17")
        XCTAssertEqual(byXFF.client(peer: "127.0.0.1", headers: headers), "198.51.100.9", "the other header is a client's word")
        var obfuscated = HTTPFields()
        obfuscated.append(HTTPField(name: TrustedProxies.forwarded, value: "for=192.0.2.60, for=_hidden;proto=https"))
        XCTAssertEqual(forwarded.client(peer: "127.0.0.1", headers: obfuscated), "127.0.0.1")
        var noFor = HTTPFields()
        noFor.append(HTTPField(name: TrustedProxies.forwarded, value: "proto=https;by=203.0.113.43"))
        XCTAssertEqual(forwarded.client(peer: "127.0.0.1", headers: noFor), "127.0.0.1")
    }
}
