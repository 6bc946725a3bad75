@testable import AtelierAPI
import AtelierImaging
import XCTest

/// `format=auto` reads `Accept` as RFC 9110 writes it: a type named with `q=0` is refused.
final class VariantParametersTests: XCTestCase {
    func testAutoPicksTheBestFormatTheClientNamesAndDoesNotRefuse() {
        let auto = VariantParameters.thumbnail
        let cases: [(String?, VariantFormat)] = [
            ("image/avif,image/webp,*/*", .avif),
            ("image/webp,image/avif;q=0.9", .avif),
            ("IMAGE/AVIF", .avif),
            (" image/webp ; q=0.8 , image/png", .webp),
            ("image/avif;q=0,image/webp", .webp),
            ("image/avif; q=0.000, image/webp;q=0", .jpeg),
            ("image/*,*/*;q=0.8", .jpeg),
            ("text/html,image/avifx", .jpeg),
            ("", .jpeg),
            (nil, .jpeg),
        ]
        for (accept, expected) in cases {
            XCTAssertEqual(auto.encoding(accept: accept), expected, accept ?? "no Accept")
        }
        XCTAssertEqual(VariantParameters(width: 64, height: nil, format: .webp).encoding(accept: "image/avif"), .webp, "a fixed format ignores Accept")
    }
}
