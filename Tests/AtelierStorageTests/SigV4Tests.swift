import AtelierStorage
import Foundation
import XCTest

/// Our AWS Signature V4 against botocore's on fixed inputs: Fixtures/sigv4-botocore.json is
/// written by ops/s3/sigv4-fixtures.py (botocore's S3SigV4Auth and S3SigV4QueryAuth at fixed
/// instants and keys), and recomputed here with the botocore ./ops/test installs, so the file is
/// botocore's answer, not a copy of ours. Canonical request, string to sign, Authorization header
/// and pre-signed URL must be byte for byte what botocore computes. The real store's verdict on
/// our signatures is in S3BlobStoreTests (SeaweedFS refuses a bad one).
final class SigV4Tests: XCTestCase {
    struct Fixtures: Decodable {
        var access_key_id: String
        var secret_access_key: String
        var cases: [Case]
    }

    struct Case: Decodable {
        var name: String
        var kind: String
        var method: String
        var host: String
        var path: String
        var query: [[String]]
        var headers: [[String]]?
        var body_base64: String?
        var region: String
        var instant: String
        var encoded_path: String?
        var canonical_request: String?
        var string_to_sign: String?
        var x_amz_date: String?
        var x_amz_content_sha256: String?
        var authorization: String?
        var expires: Int?
        var url: String?
    }

    private func fixtures() throws -> Fixtures {
        try JSONDecoder().decode(Fixtures.self, from: Data(contentsOf: Self.fixturesFile))
    }

    private static var fixturesFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/sigv4-botocore.json")
    }

    /// botocore, run now on the generator's fixed inputs, writes the checked-in file byte for byte.
    func testTheFixturesAreWhatBotocoreComputes() throws {
        let python = try XCTUnwrap(ProcessInfo.processInfo.environment["ATELIER_TEST_PYTHON"],
                                   "ATELIER_TEST_PYTHON is not set: run the tests with ./ops/test, which installs botocore")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sigv4-botocore-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repository.appendingPathComponent("ops/s3/sigv4-fixtures.py").path, output.path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "ops/s3/sigv4-fixtures.py failed")
        let computed = try Data(contentsOf: output)
        let checkedIn = try Data(contentsOf: Self.fixturesFile)
        XCTAssertTrue(computed == checkedIn, "botocore now computes other fixtures: run ./ops/s3/sigv4-fixtures and review the diff")
    }

    private func date(_ instant: String) throws -> Date {
        try XCTUnwrap(ISO8601DateFormatter().date(from: instant), instant)
    }

    private func pairs(_ list: [[String]]) -> [(String, String)] {
        list.map { ($0[0], $0[1]) }
    }

    func testHeaderSignaturesMatchBotocore() throws {
        let fixtures = try fixtures()
        let credentials = SigV4Credentials(accessKeyID: fixtures.access_key_id, secretAccessKey: fixtures.secret_access_key)
        let cases = fixtures.cases.filter { $0.kind == "header" }
        XCTAssertGreaterThanOrEqual(cases.count, 8)
        for fixture in cases {
            let body = try XCTUnwrap(Data(base64Encoded: fixture.body_base64 ?? ""), fixture.name)
            let encodedPath = CanonicalRequest.encodePath(fixture.path)
            XCTAssertEqual(encodedPath, fixture.encoded_path, fixture.name)
            let signed = HeaderSigner(credentials: credentials, region: fixture.region).sign(
                method: fixture.method, host: fixture.host, encodedPath: encodedPath, query: pairs(fixture.query),
                headers: pairs(fixture.headers ?? []), payloadHash: HeaderSigner.payloadHash(body), date: try date(fixture.instant))
            XCTAssertEqual(signed.canonicalRequest.text, fixture.canonical_request, fixture.name)
            XCTAssertEqual(signed.stringToSign, fixture.string_to_sign, fixture.name)
            XCTAssertEqual(signed.authorization, fixture.authorization, fixture.name)
            let sent = Dictionary(signed.headers.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { $1 })
            XCTAssertEqual(sent["x-amz-date"], fixture.x_amz_date, fixture.name)
            XCTAssertEqual(sent["x-amz-content-sha256"], fixture.x_amz_content_sha256, fixture.name)
            XCTAssertEqual(sent["host"], fixture.host, fixture.name)
        }
    }

    func testPresignedURLsMatchBotocore() throws {
        let fixtures = try fixtures()
        let credentials = SigV4Credentials(accessKeyID: fixtures.access_key_id, secretAccessKey: fixtures.secret_access_key)
        let cases = fixtures.cases.filter { $0.kind == "query" }
        XCTAssertGreaterThanOrEqual(cases.count, 3)
        for fixture in cases {
            let encodedPath = CanonicalRequest.encodePath(fixture.path)
            let query = QueryPresigner(credentials: credentials, region: fixture.region).query(
                method: fixture.method, host: fixture.host, encodedPath: encodedPath, parameters: pairs(fixture.query),
                date: try date(fixture.instant), expires: try XCTUnwrap(fixture.expires))
            let scheme = try XCTUnwrap(fixture.url?.components(separatedBy: "://").first)
            XCTAssertEqual("\(scheme)://\(fixture.host)\(encodedPath)?\(query)", fixture.url, fixture.name)
        }
    }

    /// Anything but a key or a value's byte differing changes the signature: a changed secret,
    /// day, region, header or payload.
    func testEveryInputIsSigned() throws {
        let credentials = SigV4Credentials(accessKeyID: "AKID", secretAccessKey: "K7MDENGbPxRfi")
        let instant = Date(timeIntervalSince1970: 1_795_000_000)
        func authorization(_ credentials: SigV4Credentials = credentials, region: String = "us-east-1", date: Date = instant,
                           headers: [(String, String)] = [("content-type", "image/jpeg")], body: String = "x") -> String {
            HeaderSigner(credentials: credentials, region: region).sign(
                method: "PUT", host: "127.0.0.1:8333", encodedPath: "/b/k", headers: headers,
                payloadHash: HeaderSigner.payloadHash(Data(body.utf8)), date: date).authorization
        }
        let base = authorization()
        XCTAssertEqual(authorization(), base, "signing is a function of its inputs")
        XCTAssertNotEqual(authorization(SigV4Credentials(accessKeyID: "AKID", secretAccessKey: "K7MDENGbPxRfI")), base)
        XCTAssertNotEqual(authorization(region: "eu-west-3"), base)
        XCTAssertNotEqual(authorization(date: instant.addingTimeInterval(1)), base)
        XCTAssertNotEqual(authorization(headers: [("content-type", "image/png")]), base)
        XCTAssertNotEqual(authorization(body: "y"), base)
        XCTAssertFalse(String(describing: credentials).contains("K7MDENGbPxRfi"), "the secret is never printed")
    }

    func testEncodingIsRFC3986() {
        XCTAssertEqual(CanonicalRequest.encode("aZ09-_.~ /+=&%é"), "aZ09-_.~%20%2F%2B%3D%26%25%C3%A9")
        XCTAssertEqual(CanonicalRequest.encodePath("/a b/c+d"), "/a%20b/c%2Bd")
        XCTAssertEqual(CanonicalRequest.canonicalQuery([("b", "2"), ("a", "x y"), ("a", "1")]), "a=1&a=x%20y&b=2")
    }
}
