import AtelierJobs
import Foundation
import XCTest

/// `caption` and `upload`: an image and nothing else to check; the shared `input` and the
/// result fields read without knowing the kind.
final class ImageJobsTests: XCTestCase {
    func testInputIsWrittenAndReadAsEveryVersionStoredIt() throws {
        XCTAssertEqual(try Contract.text(Contract.input),
                       #"{"blob":"jobs/0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60/input.png","bytes":2345,"content_type":"image/png","format":"png"}"#)
        XCTAssertEqual(BlobInput.of(payload: #"{"style_id": "sketch", "input": \#(Contract.storedInput)}"#), Contract.input)
        XCTAssertNil(BlobInput.of(payload: #"{"text": "no image"}"#))
        XCTAssertNil(BlobInput.of(payload: "not json"))
    }

    func testCaption() throws {
        let payload = try CaptionJob().payload(options: Contract.options(#"{"unread": 1}"#), input: Contract.input)
        XCTAssertEqual(try Contract.decode(CaptionJob.Payload.self, #"{"input": \#(Contract.storedInput)}"#), payload)
        let result = CaptionJob.Result(caption: "A cat", provider: "openai", model: "gpt", confidence: "high",
                                       usage: CaptionJob.Usage(promptTokens: 10, completionTokens: 2, totalTokens: 12), width: 640, height: 480)
        let text = #"{"caption":"A cat","confidence":"high","height":480,"model":"gpt","provider":"openai","usage":{"completion_tokens":2,"prompt_tokens":10,"total_tokens":12},"width":640}"#
        XCTAssertEqual(try Contract.text(result), text)
        XCTAssertEqual(try Contract.decode(CaptionJob.Result.self, text), result)
        XCTAssertEqual(ResultFields.of(result: text)?.caption, "A cat")
        var local = result
        local.usage = nil
        XCTAssertFalse(try Contract.text(local).contains("usage"), "no usage: no field")
    }

    func testUpload() throws {
        let payload = try UploadJob().payload(options: Contract.options(#"{"source_name": "sunset"}"#), input: Contract.input)
        XCTAssertEqual(try Contract.decode(UploadJob.Payload.self, #"{"input": \#(Contract.storedInput), "source_name": "sunset"}"#), payload)
        XCTAssertEqual(try Contract.text(UploadJob.Result(format: "png", width: 2, height: 1, bytes: 99)),
                       #"{"bytes":99,"format":"png","height":1,"width":2}"#)
    }

    func testAKindThatNeedsAnImageRefusesAPayloadWithoutOne() throws {
        let options = try Contract.options("{}")
        XCTAssertEqual(Contract.refusal { _ = try CaptionJob().payload(options: options, input: nil) },
                       JobOptionsError(field: "image", message: "a caption job needs an image"))
        XCTAssertEqual(Contract.refusal { _ = try UploadJob().payload(options: options, input: nil) },
                       JobOptionsError(field: "image", message: "an upload job needs an image"))
        XCTAssertEqual(Contract.refusal { _ = try EchoJob().payload(options: options, input: nil) },
                       JobOptionsError(field: "image", message: "an echo job needs an image"))
        XCTAssertEqual(Contract.refusal { _ = try StylizeJob().payload(options: options, input: nil) },
                       JobOptionsError(field: "image", message: "a stylize job needs an image"), "before the missing style_id")
        XCTAssertEqual(Contract.refusal { _ = try AnalysisJob(roster: ["piet_mondrian"]).payload(options: options, input: nil) },
                       JobOptionsError(field: "image", message: "an analysis job needs an image"))
    }

    func testResultFieldsOfAnyKind() {
        XCTAssertEqual(ResultFields.of(result: #"{"result_blob": 5, "caption": "kept"}"#)?.caption, "kept", "a field of another type is nil, the rest is read")
        XCTAssertNil(ResultFields.of(result: #"{"slept_ms": 5}"#)?.resultBlob)
        XCTAssertNil(ResultFields.of(result: nil))
        XCTAssertNil(ResultFields.of(result: "[1]"))
    }
}
