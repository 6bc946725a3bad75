@testable import AtelierAPI
import XCTest

/// `ATELIER_TRUSTED_PROXIES`: which connections are believed about the client's scheme.
final class TrustedProxiesTests: XCTestCase {
    func testOnlyListedProxiesAreBelieved() {
        let proxies = TrustedProxies.parse("10.0.0.5, [::1]")
        XCTAssertEqual(proxies?.addresses, ["10.0.0.5", "::1"])
        XCTAssertNil(TrustedProxies.parse("proxy.local"), "names are not addresses")
        let trusted = try! XCTUnwrap(proxies)
        XCTAssertTrue(trusted.saysHTTPS(peer: "10.0.0.5", forwardedProto: "https"))
        XCTAssertTrue(trusted.saysHTTPS(peer: "0:0:0:0:0:0:0:1", forwardedProto: "http, HTTPS"), "the nearest proxy's word, in any spelling")
        XCTAssertFalse(trusted.saysHTTPS(peer: "10.0.0.6", forwardedProto: "https"), "anyone else's header is not believed")
        XCTAssertFalse(trusted.saysHTTPS(peer: "10.0.0.5", forwardedProto: "https, http"))
        XCTAssertFalse(trusted.saysHTTPS(peer: "10.0.0.5", forwardedProto: nil))
        XCTAssertFalse(TrustedProxies().saysHTTPS(peer: "127.0.0.1", forwardedProto: "https"), "none listed: none believed")
    }
}
