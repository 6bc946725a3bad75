import AtelierAPI
import AtelierAPITestSupport
import AtelierEmbeddings
import AtelierImaging
import AtelierQueue
import Foundation
import XCTest

/// The Mondrian app's whole flow (docs/clients.md §2) against a real server and worker:
/// advisors → upload → stream → analysis → index → search → thumbnail, every response decoded
/// with the app's own `Codable` models (field lists copied from the guide).
class MondrianFlowTestCase: APITestCase {
    // The Mondrian app's models, as in its integration guide.
    struct UploadResponse: Decodable {
        let job_id: String; let filename: String; let advisor: String; let advisors_used: [String]
        let status: String; let status_url: String; let stream_url: String
    }
    struct ConnectedEvent: Decodable { let type: String; let job_id: String }
    struct StatusUpdateEvent: Decodable { let type: String; let job_data: JobData }
    struct JobData: Decodable {
        let status: String; let progress_percentage: Int; let current_step: String?
        let current_advisor: Int?; let total_advisors: Int?; let step_phase: String?
    }
    struct AnalysisCompleteEvent: Decodable { let type: String; let job_id: String; let analysis_html: String }
    struct DoneEvent: Decodable { let type: String; let job_id: String }
    struct IndexRequest: Encodable { let job_id: String; let image_path: String }
    struct IndexResponse: Decodable { let success: Bool; let id: String; let caption: String; let embedding_dim: Int }
    struct SearchRequest: Encodable { let query: String; let top_k: Int }
    struct SearchResponse: Decodable { let query: String; let results: [SearchResult]; let total: Int }
    struct SearchResult: Decodable { let id: String; let job_id: String; let image_path: String; let caption: String; let similarity: Double }
    /// `/status` is `job_data` plus `job_id`.
    struct StatusResponse: Decodable {
        let job_id: String; let status: String; let progress_percentage: Int; let current_step: String?
        let current_advisor: Int?; let total_advisors: Int?; let step_phase: String?; let error: String?
    }

    override var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(TestModel.encoder) }

    override func setUp() async throws {
        guard TestModel.encoder != nil else {
            throw XCTSkip("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model")
        }
        try await super.setUp()
    }

    /// A landscape: a blue sky over a dark green field.
    func photo() throws -> Data {
        var image = PixelBuffer(width: 320, height: 240, channels: 3, fill: 0)
        for y in 0..<240 { for x in 0..<320 {
            let i = (y * 320 + x) * 3
            image.pixels[i] = UInt8(y < 120 ? 120 : 50); image.pixels[i + 1] = UInt8(y < 120 ? 165 : 110); image.pixels[i + 2] = UInt8(y < 120 ? 230 : 45)
        } }
        return Data(try ImageCodec.encodeJPEG(image))
    }

    /// The app's own upload body: image, advisor, auto_analyze (plus any extra fields).
    func upload(advisor: String, extra: [(String, String)] = [], image: Data? = nil, filename: String = "photo.jpg",
                token: String?? = .none) async throws -> Reply {
        let (body, type) = multipart([("advisor", advisor), ("auto_analyze", "true")] + extra, image: try image ?? photo(),
                                     filename: filename, contentType: "image/jpeg")
        return try await request(.POST, "/upload", token: token, body: body, contentType: type)
    }

    func json<T: Encodable>(_ value: T) throws -> Data { try JSONEncoder().encode(value) }

    /// The app's whole flow: advisors → upload → stream → analysis → index → search → thumbnail
    /// (with the test's token, or without one where ``sendsToken`` is false).
    /// The app's flow; `searchBase` (its search service's address: the app calls port 5400 for
    /// index and search, 5005 for the rest) defaults to the one address the test server has.
    func runTheAppsFlow(searchBase: String = "") async throws {
        // Step 2: upload.
        let uploaded = try await upload(advisor: "ansel", filename: "Sunset over Half Dome.JPG")
        XCTAssertEqual(uploaded.status, 200, uploaded.text)
        let upload = try JSONDecoder().decode(UploadResponse.self, from: uploaded.body)
        XCTAssertEqual(upload.status, "queued")
        XCTAssertEqual(upload.advisor, "ansel")
        XCTAssertEqual(upload.advisors_used, ["ansel"])
        XCTAssertEqual(upload.status_url, "\(baseURL)/status/\(upload.job_id)")
        XCTAssertEqual(upload.stream_url, "\(baseURL)/stream/\(upload.job_id)")
        XCTAssertTrue(upload.filename.hasPrefix("sunset-over-half-dome-\(upload.job_id)-") && upload.filename.hasSuffix(".jpg"), upload.filename)

        // Step 3: the stream, read to its end.
        let stream = try await readEventStream(upload.stream_url)
        let names = stream.events.compactMap(\.name)
        XCTAssertEqual(names.first, "connected")
        XCTAssertEqual(try stream.events[0].decode(ConnectedEvent.self).job_id, upload.job_id)
        XCTAssertEqual(Array(names.suffix(3)), ["status_update", "analysis_complete", "done"], "\(names)")
        let updates = try stream.events.filter { $0.name == "status_update" }.map { try $0.decode(StatusUpdateEvent.self).job_data }
        let conjuring = try XCTUnwrap(updates.first { $0.current_step == "Conjuring Ansel Adams" }, "\(updates)")
        XCTAssertEqual(conjuring.status, "analyzing")
        XCTAssertEqual(conjuring.current_advisor, 1)
        XCTAssertEqual(conjuring.total_advisors, 1)
        XCTAssertEqual(conjuring.step_phase, "analyzing")
        let percentages = updates.map(\.progress_percentage)
        XCTAssertEqual(percentages, percentages.sorted(), "progress only grows: \(percentages)")
        XCTAssertEqual(updates.last?.status, "completed")
        XCTAssertEqual(updates.last?.progress_percentage, 100)
        let complete = try XCTUnwrap(stream.events.first { $0.name == "analysis_complete" }).decode(AnalysisCompleteEvent.self)
        XCTAssertEqual(complete.job_id, upload.job_id)
        XCTAssertTrue(complete.analysis_html.hasPrefix("<!DOCTYPE html>") && complete.analysis_html.contains("Composition ("))
        XCTAssertEqual(try stream.events.last?.decode(DoneEvent.self).job_id, upload.job_id)
        let ids = stream.events.dropFirst().compactMap(\.id)
        XCTAssertEqual(ids.count, stream.events.count - 1, "every event after connected has an id")
        let end = try XCTUnwrap(ids.last?.split(separator: ".").first)
        XCTAssertEqual(Array(ids.suffix(3)), ["\(end).1", "\(end).2", "\(end).3"])

        // /status and Step 4's fallback.
        let status = try JSONDecoder().decode(StatusResponse.self, from: try await request(.GET, upload.status_url).body)
        XCTAssertEqual(status.job_id, upload.job_id)
        XCTAssertEqual(status.status, "completed")
        XCTAssertEqual(status.progress_percentage, 100)
        let analysis = try await request(.GET, "/analysis/\(upload.job_id)")
        XCTAssertEqual(analysis.status, 200)
        XCTAssertEqual(analysis.header("Content-Type"), "text/html; charset=utf-8")
        XCTAssertEqual(analysis.text, complete.analysis_html)

        // The uploaded image, without a token, by its signed name only.
        let source = try await request(.GET, "/image/source/\(upload.filename)", token: .some(nil))
        XCTAssertEqual(source.status, 200)
        XCTAssertEqual(source.header("Content-Type"), "image/jpeg")
        XCTAssertEqual(source.body, try photo())

        // Step 5: index, with the analysis's caption.
        let indexed = try await request(.POST, searchBase + "/index", body: try json(IndexRequest(job_id: upload.job_id, image_path: "source/\(upload.filename)")),
                                        contentType: "application/json")
        XCTAssertEqual(indexed.status, 200, indexed.text)
        let index = try JSONDecoder().decode(IndexResponse.self, from: indexed.body)
        XCTAssertTrue(index.success)
        XCTAssertEqual(index.embedding_dim, 384)
        let job = try await db.queue.job(id: try XCTUnwrap(UUID(uuidString: upload.job_id)))
        let analysisCaption = try XCTUnwrap((JSONSerialization.jsonObject(with: Data((job.result ?? "{}").utf8)) as? [String: Any])?["caption"] as? String)
        XCTAssertEqual(index.caption, analysisCaption, "the analysis's caption is reused")
        let again = try JSONDecoder().decode(IndexResponse.self, from: try await request(
            .POST, searchBase + "/index", body: try json(IndexRequest(job_id: upload.job_id, image_path: "source/\(upload.filename)")),
            contentType: "application/json").body)
        XCTAssertEqual(again.id, index.id, "indexing again answers the same item")
        let childCount = try await db.queue.children(of: job.id).count
        XCTAssertEqual(childCount, 1, "without running another job")

        // Step 6: search, and the thumbnail the app builds from image_path.
        let found = try await request(.POST, searchBase + "/search", body: try json(SearchRequest(query: "blue sky over a green field", top_k: 10)),
                                      contentType: "application/json")
        let search = try JSONDecoder().decode(SearchResponse.self, from: found.body)
        let hit = try XCTUnwrap(search.results.first, found.text)
        XCTAssertEqual(hit.id, index.id)
        XCTAssertEqual(hit.job_id, upload.job_id)
        XCTAssertEqual(hit.image_path, "source/\(upload.filename)")
        XCTAssertEqual(hit.caption, analysisCaption)
        let thumbnail = try await request(.GET, "\(searchBase.isEmpty ? baseURL : searchBase)/image/\(hit.image_path)", token: .some(nil))
        XCTAssertEqual(thumbnail.status, 200)
        // Beyond the app's fields: the analysis made the photo's placeholder, and the hit carries it.
        let fields = try XCTUnwrap((try found.json()["results"] as? [[String: Any]])?.first)
        XCTAssertNotNil((fields["thumbhash"] as? String).flatMap { Data(base64Encoded: $0) }.flatMap { ThumbHash.decode([UInt8]($0)) }, found.text)
    }
}

final class MondrianFlowTests: MondrianFlowTestCase {
    func testTheAppsFlowEndToEnd() async throws {
        try await runTheAppsFlow()
    }

    func testAResumedStreamSendsOnlyWhatWasMissed() async throws {
        let upload = try JSONDecoder().decode(UploadResponse.self, from: try await upload(advisor: "okeefe").body)
        let full = try await readEventStream(upload.stream_url)
        let end = try XCTUnwrap(full.events.last?.id?.split(separator: ".").first)

        // A new connection to a finished job: the end group, nothing older.
        let fresh = try await readEventStream(upload.stream_url)
        XCTAssertEqual(fresh.events.map(\.name), ["connected", "status_update", "analysis_complete", "done"])
        XCTAssertEqual(fresh.events.map(\.id), [nil, "\(end).1", "\(end).2", "\(end).3"])

        // Resumes inside and after the end group.
        for (lastID, expected) in [("\(end).1", ["analysis_complete", "done"]), ("\(end).2", ["done"]), ("\(end).3", [])] {
            let resumed = try await readEventStream(upload.stream_url, lastEventID: lastID)
            XCTAssertEqual(resumed.events.compactMap(\.name), ["connected"] + expected, lastID)
        }
        // A resume from the job's first event replays every later one, in order. The first event
        // is read from the database: the first stream may have connected after the job ended (a
        // busy machine), when it holds only the end group.
        let jobEvents = try await db.queue.events(jobID: try XCTUnwrap(UUID(uuidString: upload.job_id)))
        let first = try XCTUnwrap(jobEvents.first?.id)
        let replay = try await readEventStream(upload.stream_url, lastEventID: String(first))
        let replayed = replay.events.dropFirst().compactMap(\.id)
        let plain = replayed.compactMap { Int64($0) }
        XCTAssertEqual(replay.events.first?.name, "connected")
        XCTAssertEqual(Array(replayed.suffix(3)), ["\(end).1", "\(end).2", "\(end).3"], "the end group closes the replay")
        XCTAssertEqual(plain, plain.sorted(), "in order")
        XCTAssertTrue(plain.allSatisfy { $0 > first }, "nothing at or before the resume point")
        XCTAssertEqual(Set(plain).count, plain.count, "nothing twice")

        let bad = try await request(.GET, "/stream/\(upload.job_id)", headers: [("Last-Event-ID", "12.9")])
        try assertError(bad, status: 400, name: "ValidationError")
    }

    func testAutoIndexChainsAnIndexJobThatReusesTheAnalysisCaption() async throws {
        let reply = try await upload(advisor: "all", extra: [("auto_index", "true")])
        XCTAssertEqual(reply.status, 200, reply.text)
        let upload = try JSONDecoder().decode(UploadResponse.self, from: reply.body)
        XCTAssertEqual(upload.advisors_used.count, 9)
        let id = try XCTUnwrap(UUID(uuidString: upload.job_id))
        try await db.eventually("the chained index job finishes") {
            try await db.queue.children(of: id).first?.state == .succeeded
        }
        let children = try await db.queue.children(of: id)
        XCTAssertEqual(children.map(\.kind), ["index"])
        let child = children[0]
        XCTAssertEqual(child.parentID, id)
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((child.result ?? "{}").utf8)) as? [String: Any])
        let analysisJob = try await db.queue.job(id: id)
        let analysis = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((analysisJob.result ?? "{}").utf8)) as? [String: Any])
        XCTAssertEqual(result["caption_from"] as? String, "job")
        XCTAssertEqual(result["text"] as? String, analysis["caption"] as? String)
        XCTAssertEqual(result["job_id"] as? String, upload.job_id, "indexed under the upload's id")
        let events = try await db.queue.events(jobID: id)
        XCTAssertTrue(events.last?.data.contains(child.id.uuidString.lowercased()) ?? false, "the success event names the follow-up")

        // The app's own /index call answers the chained job's item; no second job.
        let indexed = try await request(.POST, "/index", body: try json(IndexRequest(job_id: upload.job_id, image_path: "source/\(upload.filename)")),
                                        contentType: "application/json")
        XCTAssertEqual(try JSONDecoder().decode(IndexResponse.self, from: indexed.body).id, result["id"] as? String, indexed.text)
        let childCount = try await db.queue.children(of: id).count
        XCTAssertEqual(childCount, 1)
    }

    func testAnUploadKeptWithoutAnalysisCanBeIndexedWithTheProvidersCaption() async throws {
        let (body, type) = multipart([("advisor", "random"), ("auto_analyze", "false")], image: try photo(), filename: "x.jpg", contentType: "image/jpeg")
        let reply = try await request(.POST, "/upload", body: body, contentType: type)
        XCTAssertEqual(reply.status, 200, reply.text)
        let upload = try JSONDecoder().decode(UploadResponse.self, from: reply.body)
        XCTAssertEqual(upload.advisor, "random")
        XCTAssertEqual(upload.advisors_used.count, 1)
        let stream = try await readEventStream(upload.stream_url)
        XCTAssertEqual(Array(stream.events.compactMap(\.name).suffix(2)), ["status_update", "done"], "no analysis, no analysis_complete")
        XCTAssertFalse(stream.events.contains { $0.name == "analysis_complete" })
        try assertError(try await request(.GET, "/analysis/\(upload.job_id)"), status: 404, name: "NotFoundError")

        let indexed = try await request(.POST, "/index", body: try json(IndexRequest(job_id: upload.job_id, image_path: "source/\(upload.filename)")),
                                        contentType: "application/json")
        XCTAssertEqual(indexed.status, 200, indexed.text)
        let index = try JSONDecoder().decode(IndexResponse.self, from: indexed.body)
        XCTAssertFalse(index.caption.isEmpty)
        let children = try await db.queue.children(of: try XCTUnwrap(UUID(uuidString: upload.job_id)))
        let child = try XCTUnwrap(children.first)
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((child.result ?? "{}").utf8)) as? [String: Any])
        XCTAssertEqual(result["caption_from"] as? String, "provider")
        XCTAssertEqual(result["text"] as? String, index.caption)
    }

    func testBadInputIsRefusedAndChangesNothing() async throws {
        let bob = try await AtelierAPITestTokens.make(db.queue, name: "bob")
        var truncated = try photo()
        truncated = truncated.prefix(20)
        let cases: [(String, () async throws -> Reply, Int)] = [
            ("no image", { let (b, t) = self.multipart([("advisor", "ansel")]); return try await self.request(.POST, "/upload", body: b, contentType: t) }, 400),
            ("no advisor", { let (b, t) = self.multipart([], image: try self.photo()); return try await self.request(.POST, "/upload", body: b, contentType: t) }, 400),
            ("unknown advisor", { try await self.upload(advisor: "banksy") }, 400),
            ("bad flag", { try await self.upload(advisor: "ansel", extra: [("auto_index", "maybe")]) }, 400),
            ("unknown field", { try await self.upload(advisor: "ansel", extra: [("kind", "stylize")]) }, 400),
            ("truncated image", { try await self.upload(advisor: "ansel", image: truncated) }, 400),
            ("not multipart", { try await self.request(.POST, "/upload", body: Data("{}".utf8), contentType: "application/json") }, 415),
            ("no token", { try await self.upload(advisor: "ansel", token: .some(nil)) }, 401),
        ]
        for (name, send, status) in cases {
            let reply = try await send()
            XCTAssertEqual(reply.status, status, "\(name): \(reply.text)")
        }
        let stored = try await db.queue.jobs(JobFilter()).total
        XCTAssertEqual(stored, 0, "nothing was stored")

        let upload = try JSONDecoder().decode(UploadResponse.self, from: try await upload(advisor: "lange").body)
        _ = try await waitForCompletion(upload.job_id)
        // Another owner's job is not found, wherever it is named.
        for path in ["/status/\(upload.job_id)", "/stream/\(upload.job_id)", "/analysis/\(upload.job_id)"] {
            try assertError(try await request(.GET, path, token: .some(bob)), status: 404, name: "NotFoundError")
        }
        let foreign = try await request(.POST, "/index", token: .some(bob),
                                        body: try json(IndexRequest(job_id: upload.job_id, image_path: "source/\(upload.filename)")), contentType: "application/json")
        try assertError(foreign, status: 404, name: "NotFoundError")
        for path in ["source/../\(upload.filename)", "/etc/passwd"] {
            let reply = try await request(.POST, "/index", body: try json(IndexRequest(job_id: upload.job_id, image_path: path)), contentType: "application/json")
            try assertError(reply, status: 400, name: "ValidationError")
        }
        // Well formed but not this upload's image: nothing there.
        let other = try await request(.POST, "/index", body: try json(IndexRequest(job_id: upload.job_id, image_path: "source/other.jpg")),
                                      contentType: "application/json")
        try assertError(other, status: 404, name: "NotFoundError")
        // Image names are not guessable or alterable.
        var forged = upload.filename
        forged.replaceSubrange(forged.index(forged.endIndex, offsetBy: -6)..<forged.index(forged.endIndex, offsetBy: -5),
                               with: forged[forged.index(forged.endIndex, offsetBy: -6)] == "A" ? "B" : "A")
        let stem = upload.filename.replacingOccurrences(of: "photo-", with: "other-")
        for name in [forged, stem, "photo-\(upload.job_id).jpg", "..%2F..%2Fetc%2Fpasswd", upload.filename.replacingOccurrences(of: ".jpg", with: ".png")] {
            let reply = try await request(.GET, "/image/source/\(name)", token: .some(nil))
            XCTAssertEqual(reply.status, 404, "\(name): \(reply.text)")
        }
        let indexJobs = try await db.queue.children(of: try XCTUnwrap(UUID(uuidString: upload.job_id))).count
        XCTAssertEqual(indexJobs, 0, "no index job was made by the refused calls")
    }
}

/// Without a worker: a job that never runs, cancelled — the stream's failure path.
final class MondrianFailedStreamTests: MondrianFlowTestCase {
    override var runsWorker: Bool { false }

    func testACancelledUploadStreamsFailedThenDone() async throws {
        let upload = try JSONDecoder().decode(UploadResponse.self, from: try await upload(advisor: "maier").body)
        let queued = try JSONDecoder().decode(StatusResponse.self, from: try await request(.GET, upload.status_url).body)
        XCTAssertEqual(queued.status, "queued")
        XCTAssertEqual(queued.total_advisors, 1)
        let early = try await request(.GET, "/analysis/\(upload.job_id)")
        XCTAssertEqual(early.status, 409, early.text)

        // The client cancels (as DELETE /v1/jobs/{id} does) while the stream is open.
        let (queue, id) = (db.queue, try XCTUnwrap(UUID(uuidString: upload.job_id)))
        let canceller = Task {
            try await Task.sleep(for: .milliseconds(300))
            _ = try await queue.cancel(id: id, reason: "cancelled by the client")
        }
        let stream = try await readEventStream(upload.stream_url)
        try await canceller.value
        XCTAssertEqual(stream.events.compactMap(\.name), ["connected", "status_update", "status_update", "done"])
        let first = try stream.events[1].decode(StatusUpdateEvent.self).job_data
        XCTAssertEqual(first.status, "queued")
        let failed = try stream.events[2].decode(StatusUpdateEvent.self).job_data
        XCTAssertEqual(failed.status, "failed")
        XCTAssertTrue(stream.events[2].data.contains("cancelled by the client"), stream.events[2].data)
        let status = try JSONDecoder().decode(StatusResponse.self, from: try await request(.GET, upload.status_url).body)
        XCTAssertEqual(status.status, "failed")
        XCTAssertEqual(status.error, "cancelled by the client")
        try assertError(try await request(.GET, "/analysis/\(upload.job_id)"), status: 409, name: "ConflictError")
    }
}
