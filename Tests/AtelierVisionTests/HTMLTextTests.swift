import AtelierVision
import XCTest

/// The one HTML escape (the analysis report's and the operator console's).
final class HTMLTextTests: XCTestCase {
    func testEscapesTheFiveCharactersThatMeanSomethingInHTML() {
        XCTAssertEqual(HTMLText.escape(#"<a href="x" title='y'>Tom & Jerry</a>"#),
                       "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;")
        XCTAssertEqual(HTMLText.escape("plain, é, 日本, 🎨"), "plain, é, 日本, 🎨")
        XCTAssertEqual(HTMLText.escape(""), "")
    }

    /// A quote followed by a combining mark is one `Character` that is not `"`; the browser still
    /// ends an attribute at the quote, so the escape works scalar by scalar (the report's own
    /// escape, character by character, let it through).
    func testAQuoteFollowedByACombiningMarkIsStillEscaped() {
        XCTAssertEqual(HTMLText.escape("x\"\u{301} onmouseover=alert(1) '\u{301}<\u{338}"),
                       "x&quot;\u{301} onmouseover=alert(1) &#39;\u{301}&lt;\u{338}")
    }

    func testNULBecomesTheReplacementCharacter() {
        XCTAssertEqual(HTMLText.escape("a\u{0}b"), "a\u{FFFD}b")
    }
}
