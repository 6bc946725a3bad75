@testable import AtelierAPI
import XCTest

/// The sign-in limits count tries per address and per email, at a fixed clock.
final class LoginLimitsTests: XCTestCase {
    /// The per-email limit counts the address as the store compares it: whitespace around it,
    /// its case or its Unicode form buy no fresh tries (before, " a@x.com" and "\ta@x.com" had
    /// ten each, the store finding the same user for all of them).
    func testOneEmailInAnySpellingSharesOneBudget() {
        let limits = LoginLimits(perAddress: 0, perEmail: 10)
        let now = 1_000_000.0
        for n in 0..<10 {
            XCTAssertNil(limits.retryAfter(address: "192.0.2.\(n)", email: "ren\u{E9}@example.com", now: now))
        }
        for variant in ["ren\u{E9}@example.com", " ren\u{E9}@example.com", "\tREN\u{C9}@example.com",
                        "ren\u{E9}@example.com\n", "rene\u{301}@example.com", "\u{A0}RENE\u{301}@EXAMPLE.COM"] {
            XCTAssertNotNil(limits.retryAfter(address: "198.51.100.1", email: variant, now: now),
                            "\(variant.debugDescription) got a fresh budget")
        }
        XCTAssertNil(limits.retryAfter(address: "198.51.100.1", email: "someone.else@example.com", now: now))
    }
}
