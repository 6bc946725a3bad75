@testable import AtelierConsole
import XCTest

/// A payload shown in the console keeps what an operator needs and loses what would let a
/// reader act as someone else: secret-named keys, signing parameters of URLs, and long blobs.
final class PayloadRedactionTests: XCTestCase {
    func testSecretsAndSignedURLsAreRedacted() throws {
        let payload = """
            {"image_url": "https://bucket.example/a.jpg?X-Amz-Signature=abc123&X-Amz-Credential=AKIA%2F1&width=3",
             "api_key": "sk-live-1", "nested": {"Password": "hunter2", "tokens": ["t1"], "style": "cartoon"},
             "webhook_secret": "s", "inline": "\(String(repeating: "A", count: 2_000))", "count": 3}
            """
        let shown = try XCTUnwrap(PayloadRedaction.pretty(payload))
        for secret in ["abc123", "AKIA", "sk-live-1", "hunter2", "\"t1\"", String(repeating: "A", count: 100)] {
            XCTAssertFalse(shown.contains(secret), "\(secret) leaked: \(shown)")
        }
        for kept in ["https://bucket.example/a.jpg?", "width=3", "\"style\" : \"cartoon\"", "\"count\" : 3", "(2000 characters)"] {
            XCTAssertTrue(shown.contains(kept), "\(kept) missing: \(shown)")
        }
    }

    func testTextThatIsNotJSONIsShownShortened() {
        XCTAssertEqual(PayloadRedaction.pretty("plain"), "plain")
        XCTAssertNil(PayloadRedaction.pretty(nil))
    }

    func testOnlyConsolePathsAreFollowedAfterSignIn() {
        XCTAssertEqual(SignInPage.safeNext("/admin/jobs?state=failed"), "/admin/jobs?state=failed")
        for hostile in ["https://evil.example", "//evil.example", "/admin//evil.example", "/admin\\x", "/other", "/admin\n", nil] {
            XCTAssertEqual(SignInPage.safeNext(hostile), "/admin", String(describing: hostile))
        }
    }
}
