import AtelierAPI
import AtelierAPITestSupport
import AtelierImaging
import Foundation
import XCTest

/// Mondrian's `GET /advisors`, decoded with the app's own models (docs/clients.md §2); every image URL
/// serves an image, without a token (the app's image views send none).
final class MondrianAdvisorsAPITests: APITestCase {
    struct AdvisorsResponse: Decodable { let advisors: [Advisor] }
    struct Advisor: Decodable {
        let id: String; let name: String; let specialty: String; let focus_areas: [String]
        let image_url: String?; let artworks: [Artwork]?
    }
    struct Artwork: Decodable { let title: String; let year: String; let url: String }

    func testNineAdvisorsWhosePicturesAreImages() async throws {
        let reply = try await request(.GET, "/advisors")
        XCTAssertEqual(reply.status, 200, reply.text)
        let advisors = try JSONDecoder().decode(AdvisorsResponse.self, from: Data(reply.text.utf8)).advisors
        XCTAssertEqual(advisors.count, 9)
        XCTAssertEqual(advisors.first?.id, "ansel")
        XCTAssertTrue(advisors.contains { $0.name == "Piet Mondrian" })
        var pictures = Set<Data>()
        for advisor in advisors {
            XCTAssertEqual(advisor.focus_areas.count, 3)
            let url = try XCTUnwrap(advisor.image_url)
            XCTAssertTrue(url.hasPrefix(baseURL), url)
            let picture = try await request(.GET, url, token: .some(nil))
            XCTAssertEqual(picture.status, 200, url)
            XCTAssertEqual(picture.headers.first(name: "Content-Type"), "image/png")
            let image = try ImageCodec.decode([UInt8](picture.body))
            XCTAssertEqual(image.width, 256)
            pictures.insert(picture.body)
        }
        XCTAssertEqual(pictures.count, 9, "each advisor has their own picture")
        let unknown = try await request(.GET, "/advisor_image/banksy.png", token: .some(nil))
        XCTAssertEqual(unknown.status, 404)
        let anonymous = try await request(.GET, "/advisors", token: .some(nil))
        XCTAssertEqual(anonymous.status, 401)
    }
}
