import AtelierJobs
import Foundation
import XCTest

/// The index contract: a text, an image (with or without its caption), another job's image, or
/// a document; checked the same way by the API and the handler.
final class IndexJobTests: XCTestCase {
    func payload(_ json: String, image: Bool = false) throws -> IndexJob.Payload {
        try IndexJob().payload(options: Contract.options(json), input: image ? Contract.input : nil)
    }

    func testTextImageAndOtherJobsImage() throws {
        let text = try payload(#"{"text": "  Paris is the capital of France ", "collection": "facts", "metadata": {"b": 1, "a": [true, null]}}"#)
        XCTAssertEqual(try Contract.text(text), #"{"collection":"facts","metadata":{"a":[true,null],"b":1},"text":"  Paris is the capital of France "}"#)
        let request = try text.request()
        XCTAssertEqual(request.text, "Paris is the capital of France")
        XCTAssertEqual(request.metadata, #"{"a":[true,null],"b":1}"#)
        XCTAssertFalse(request.isImage)

        let image = try payload(#"{"image_path": "source/cat.jpg"}"#, image: true).request()
        XCTAssertTrue(image.isImage && image.needsCaption)
        XCTAssertEqual([image.collection, image.imagePath, image.metadata], ["default", "source/cat.jpg", "{}"])

        let upload = UUID()
        let fromJob = IndexJob.Payload.image(ofJob: upload, imagePath: "source/x.jpg")
        XCTAssertEqual(try Contract.text(fromJob), #"{"from_job":"\#(upload.uuidString.lowercased())","image_path":"source/x.jpg"}"#)
        XCTAssertEqual(try fromJob.request().fromJob, upload)

        let document = UUID()
        XCTAssertEqual(try Contract.text(IndexJob.Payload.document(document)), #"{"document_id":"\#(document.uuidString.lowercased())"}"#)
        XCTAssertEqual(try IndexJob.Payload.document(document).request().documentID, document)
    }

    func testBadOptionsAreRefusedNamingTheField() throws {
        let cases: [(String, Bool, String)] = [
            (#"{}"#, false, "text"),
            (#"{"text": "   "}"#, false, "text"),
            (#"{"text": 5}"#, false, "text"),
            (#"{"text": "a", "caption": "b"}"#, true, "text"),
            (#"{"caption": 5}"#, true, "caption"),
            (#"{"text": "a", "collection": "no spaces"}"#, false, "collection"),
            (#"{"text": "a", "source_key": ""}"#, false, "source_key"),
            (#"{"text": "a", "image_path": "x.jpg"}"#, false, "image_path"),
            (#"{"image_path": "../etc/passwd"}"#, true, "image_path"),
            (#"{"text": "a", "metadata": [1]}"#, false, "metadata"),
            (#"{"document_id": "not-a-uuid"}"#, false, "document_id"),
            (#"{"document_id": "0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60", "text": "a"}"#, false, "document_id"),
            (#"{"from_job": "nope"}"#, false, "from_job"),
            (#"{"from_job": "0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60"}"#, true, "from_job"),
            (#"{"text": "a", "other": 1}"#, false, "other"),   // an option it does not read
            (#"{"text": "a", "sourcekey": "k"}"#, false, "sourcekey"),
        ]
        for (json, image, field) in cases {
            XCTAssertEqual(Contract.refusal { _ = try payload(json, image: image) }?.field, field, json)
        }
        XCTAssertEqual(Contract.refusal { _ = try payload(#"{"text": "\#(String(repeating: "a", count: 8001))"}"#) }?.message,
                       "text is longer than 8000 characters")
    }

    func testRowsWrittenBeforeTheContractStillDecode() throws {
        let image = try Contract.decode(IndexJob.Payload.self, #"{"input": \#(Contract.storedInput), "caption": "a cat", "metadata": null}"#)
        XCTAssertEqual(image.input, Contract.input)
        XCTAssertEqual(try image.request().text, "a cat")
        let document = try Contract.decode(IndexJob.Payload.self, #"{"document_id": "0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60"}"#)
        XCTAssertNotNil(try document.request().documentID)
    }

    func testResultsAreTheJSONClientsRead() throws {
        let result = IndexJob.Result(id: "r", jobID: "j", collection: "default", sourceKey: "job:j", sourceKind: "text", text: "hello",
                                     caption: nil, captionFrom: nil, imagePath: nil, embeddingDim: 384)
        let text = #"{"collection":"default","embedding_dim":384,"id":"r","job_id":"j","source_key":"job:j","source_kind":"text","text":"hello"}"#
        XCTAssertEqual(try Contract.text(result), text)
        XCTAssertEqual(try Contract.decode(IndexJob.Result.self, text), result)
        XCTAssertEqual(try Contract.text(IndexJob.Skipped(documentID: "d", skipped: "the document no longer exists")),
                       #"{"document_id":"d","skipped":"the document no longer exists"}"#)
    }
}
