import AtelierAPITestSupport
import AtelierStorage
import AtelierTestSupport
import Foundation
import XCTest

/// Fetch a result through its pre-signed URL, with no token: a finished job's `result_url` carries
/// `expires` and an HMAC `signature`, and a plain `GET` (a browser, an `<img src>`, a CDN) fetches
/// the file until it expires. Any process holding the signing secret (`ATELIER_SIGNING_SECRET`)
/// can sign such a URL itself with `URLSigner`, here for the job's uploaded input. Change any
/// part of a URL — the signature, the expiry, the file — and it is refused with `403`.
final class FetchASignedResult: APITestCase {
    func testDownloadWithoutATokenAndSeeATamperedURLRefused() async throws {
        let photo = TestImages.png(width: 64, height: 48)
        let (form, contentType) = multipart([("kind", "echo")], image: photo)
        let created = try await send(.POST, "\(baseURL)/v1/jobs", headers: ["X-App-Token": token, "Content-Type": contentType],
                                     body: form)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        let resultURL = try XCTUnwrap(done["result_url"] as? String)
        XCTAssertTrue(resultURL.contains("?expires=") && resultURL.contains("&signature="), resultURL)

        let download = try await send(.GET, resultURL)
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.header("Content-Type"), "image/png")
        XCTAssertEqual(download.body, photo, "echo's result is its input, byte for byte")

        var tampered = resultURL
        tampered.append(tampered.removeLast() == "A" ? "B" : "A")
        let refused = try await send(.GET, tampered)
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(try refused.json()["error"] as? String, "AuthorizationError")
        let later = Int(Date().timeIntervalSince1970) + 86_400
        let stretched = resultURL.replacingOccurrences(of: #"expires=\d+"#, with: "expires=\(later)", options: .regularExpression)
        try await XCTAssertEqualAsync(try await send(.GET, stretched).status, 403, "a later expiry breaks the signature")

        // Sign a URL yourself: the job's input, valid for one minute.
        let signer = try URLSigner(secret: server.configuration.signingSecret, lifetime: .seconds(60))
        let input = BlobKey.jobInput(try XCTUnwrap(UUID(uuidString: id)), fileExtension: "png")
        let signed = try await send(.GET, baseURL + signer.signedPath(for: input))
        XCTAssertEqual(signed.status, 200)
        XCTAssertEqual(signed.body, photo)
    }
}
