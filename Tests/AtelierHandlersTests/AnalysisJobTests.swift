import AtelierAPI
import AtelierAPITestSupport
import AtelierImaging
import AtelierTestSupport
import AtelierVision
import Foundation
import XCTest

/// The `analysis` job over HTTP: chosen advisors review an uploaded photo, progress names each
/// advisor, and the result is a self-contained HTML report behind a signed URL.
final class AnalysisJobTests: APITestCase {
    static func photo() throws -> Data {
        var image = PixelBuffer(width: 400, height: 300, channels: 3, fill: 0)
        for y in 0..<300 { for x in 0..<400 {
            let i = (y * 400 + x) * 3
            image.pixels[i] = UInt8(y < 150 ? 130 : 70); image.pixels[i + 1] = UInt8(y < 150 ? 170 : 120); image.pixels[i + 2] = UInt8(y < 150 ? 225 : 60)
        } }
        return Data(try ImageCodec.encodeJPEG(image))
    }

    func testChosenAdvisorsReviewAndTheReportIsSelfContainedHTML() async throws {
        let (body, type) = multipart([("kind", "analysis"), ("advisor", "ansel,weston")], image: try AnalysisJobTests.photo(),
                                     filename: "field.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        let result = try XCTUnwrap(done["result"] as? [String: Any])
        let advisors = try XCTUnwrap(result["advisors"] as? [[String: Any]])
        XCTAssertEqual(advisors.compactMap { $0["id"] as? String }, ["ansel", "weston"])
        XCTAssertEqual((advisors.first?["scores"] as? [String: Int])?.count, 8)
        XCTAssertNotNil(result["grade"] as? String)

        let events = try await db.scalar("SELECT string_agg(coalesce(data->>'step', ''), '|' ORDER BY id) FROM job_events WHERE job_id = \(UUID(uuidString: id)!)", as: String.self)
        XCTAssertTrue(events.contains("Conjuring Ansel Adams") && events.contains("Conjuring Edward Weston"), events)

        let download = try await request(.GET, try XCTUnwrap(done["result_url"] as? String), token: .some(nil))
        XCTAssertEqual(download.status, 200)
        XCTAssertTrue(download.headers.first(name: "Content-Type")?.hasPrefix("text/html") ?? false, "\(download.headers)")
        let html = download.text
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains("data:image/jpeg;base64,"), "the photo is embedded")
        XCTAssertFalse(html.contains("src=\"http"), "nothing is loaded from elsewhere")
        for title in ["Composition (", "Lighting &amp; Exposure (", "Technical Execution ("] { XCTAssertTrue(html.contains(title), title) }
        XCTAssertNotNil(html.range(of: #"\((10|[1-9])/10\)"#, options: .regularExpression))
        XCTAssertTrue(html.contains("Ansel Adams") && html.contains("Edward Weston") && !html.contains("Piet Mondrian"))
    }

    func testAnUnknownAdvisorIsNamed() async throws {
        let (body, type) = multipart([("kind", "analysis"), ("advisor", "ansel,banksy")], image: try AnalysisJobTests.photo(),
                                     filename: "a.jpg", contentType: "image/jpeg")
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        try assertError(reply, status: 400, name: "ValidationError")
        XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "advisor")
        XCTAssertTrue(reply.text.contains("banksy"))
    }
}

/// With the `openai` provider the advisors' prose comes from the model, grounded in the
/// measured scores; an unusable answer falls back to the templates, and the report says which.
final class AnalysisOpenAITests: APITestCase {
    static let chat = ChatCompletionsServer([
        .caption("A lone tree on a ridge under a pale blue sky."),
        .caption("""
            ```json
            {"feedback": ["Your horizon sits level, and Composition earns its 7/10.", "The sky holds detail: Lighting & Exposure 8/10."],
             "recommendations": ["Lower the ISO: Technical Execution is only 6/10."]}
            ```
            """),
        .caption("I would rather not grade this."),
    ])

    override var visionProvider: TestVisionProvider {
        var configuration = OpenAIVisionProvider.Configuration(baseURL: Self.chat.baseURL, apiKey: "sk-test", model: "test-vision")
        configuration.maxRetries = 0
        return TestVisionProvider(try! OpenAIVisionProvider(configuration))
    }

    override func setUp() async throws {
        if Self.chat.baseURL.isEmpty { try await Self.chat.start() }
        try await super.setUp()
    }

    func testTheModelWritesTheProseFromTheMeasuredScores() async throws {
        let (body, type) = multipart([("kind", "analysis"), ("advisor", "ansel,weston")], image: try AnalysisJobTests.photo(),
                                     filename: "ridge.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        let done = try await waitForCompletion(try XCTUnwrap(created.json()["id"] as? String))
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        let result = try XCTUnwrap(done["result"] as? [String: Any])
        XCTAssertEqual(result["caption"] as? String, "A lone tree on a ridge under a pale blue sky.")
        let advisors = try XCTUnwrap(result["advisors"] as? [[String: Any]])
        XCTAssertEqual(advisors.first?["prose_by"] as? String, "openai/test-vision")
        XCTAssertTrue((advisors.last?["prose_by"] as? String ?? "").hasPrefix("atelier-local templates (openai failed"), "\(advisors)")

        // What the model was asked: the advisor, every measured score with its evidence, the caption.
        let critique = try XCTUnwrap(Self.chat.received.dropFirst().first?.body)
        let prompt = try XCTUnwrap((critique["messages"] as? [[String: Any]])?.first?["content"] as? String)
        XCTAssertTrue(prompt.contains("Ansel Adams") && prompt.contains("A lone tree on a ridge"), prompt)
        let scores = try XCTUnwrap(advisors.first?["scores"] as? [String: Int])
        XCTAssertTrue(prompt.contains("Composition: \(scores["composition"] ?? -1)/10 [focus area] — measured: visual weight"), prompt)
        XCTAssertTrue(prompt.contains("Color Harmony: \(scores["color_harmony"] ?? -1)/10 — measured:"), prompt)

        let html = try await request(.GET, try XCTUnwrap(done["result_url"] as? String), token: .some(nil)).text
        XCTAssertTrue(html.contains("Your horizon sits level, and Composition earns its 7/10."))
        XCTAssertTrue(html.contains("Written by openai/test-vision from the measured scores."))
        XCTAssertTrue(html.contains("Written by atelier-local templates (openai failed"))
    }
}
