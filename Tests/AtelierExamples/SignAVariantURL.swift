import AtelierAPITestSupport
import AtelierImaging
import AtelierStorage
import AtelierTestSupport
import Foundation
import XCTest

/// A photo at the size and format a screen needs, from a signed variant URL: a job's view
/// carries `thumbnail_url` (512 px square, cropped around the subject, AVIF, WebP or JPEG by
/// `Accept`), and a process holding the signing secret signs other sizes itself with
/// `URLSigner.signedVariantPath`. The first request renders the variant; later ones are served
/// from its cache. Every parameter is covered by the signature: change one and it is `403`.
final class SignAVariantURL: APITestCase {
    func testAThumbnailAndAVariantSignedHere() async throws {
        let photo = TestImages.png(width: 400, height: 300)
        let (form, contentType) = multipart([("kind", "echo")], image: photo)
        let created = try await send(.POST, "\(baseURL)/v1/jobs", headers: ["X-App-Token": token, "Content-Type": contentType],
                                     body: form)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        let thumbnail = try XCTUnwrap(done["thumbnail_url"] as? String, "\(done)")

        let webp = try await send(.GET, thumbnail, headers: ["Accept": "image/webp,*/*"])
        XCTAssertEqual(webp.status, 200, webp.text)
        XCTAssertEqual(webp.header("Content-Type"), "image/webp")
        let square = try ImageCodec.decode([UInt8](webp.body))
        XCTAssertEqual([square.width, square.height], [300, 300], "cover, never enlarged: the photo's height, squared")

        // Sign a 100 px wide JPEG of the upload here, valid for a minute.
        let signer = try URLSigner(secret: server.configuration.signingSecret, lifetime: .seconds(60))
        let input = BlobKey.jobInput(try XCTUnwrap(UUID(uuidString: id)), fileExtension: "png")
        let small = baseURL + signer.signedVariantPath(for: input, parameters: "w=100&fit=inside&format=jpeg&q=80")
        let jpeg = try await send(.GET, small)
        XCTAssertEqual(jpeg.status, 200, jpeg.text)
        XCTAssertEqual(jpeg.header("Content-Type"), "image/jpeg")
        let resized = try ImageCodec.decode([UInt8](jpeg.body))
        XCTAssertEqual([resized.width, resized.height], [100, 75])

        let wider = small.replacingOccurrences(of: "w=100", with: "w=2000")
        try await XCTAssertEqualAsync(try await send(.GET, wider).status, 403, "a parameter changed breaks the signature")
    }
}
