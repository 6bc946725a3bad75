import AtelierImaging
import AtelierJobs
import Foundation
import XCTest

/// The stylize contract: options → payload as the API checks them, the payload the handler
/// decodes (rows written before the contract was typed included), and its result's JSON.
final class StylizeJobTests: XCTestCase {
    func payload(_ json: String) throws -> StylizeJob.Payload {
        try StylizeJob().payload(options: Contract.options(json), input: Contract.input)
    }

    func testOptionsBecomeThePayloadTheHandlerPlans() throws {
        let payload = try payload(#"{"style_id": "sketch", "params": {"eyes": 0.8, "intensity": 1, "ignored": "x"}, "output": "png", "warp": [{"type": "bump", "x": 10, "y": 20, "radius": 30, "scale": -0.4}], "note": "not read"}"#)
        XCTAssertEqual(try Contract.text(payload), """
            {"input":{"blob":"jobs/0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60/input.png","bytes":2345,"content_type":"image/png","format":"png"},\
            "output":"png","params":{"eyes":0.8,"intensity":1},"style_id":"sketch","warp":[{"radius":30,"scale":-0.4,"type":"bump","x":10,"y":20}]}
            """)
        let plan = try payload.plan()
        XCTAssertEqual(plan.style, .sketch)
        XCTAssertEqual(plan.output, .png)
        XCTAssertEqual([plan.parameters.intensity, plan.parameters.eyes, plan.parameters.nose], [1, 0.8, 0.5])
        XCTAssertEqual(plan.distortions, [Distortion(.bump, x: 10, y: 20, radius: 30, scale: -0.4)])
        XCTAssertEqual(try Contract.decode(StylizeJob.Payload.self, try Contract.text(payload)), payload, "round trip")
    }

    func testRowsWrittenBeforeTheContractStillDecode() throws {
        // The options as the client sent them, plus input, through JSONSerialization and jsonb.
        let row = #"{"warp": [{"x": 10, "y": 20, "type": "pinch", "scale": 1.5, "radius": 30}], "input": \#(Contract.storedInput), "params": {"jaw": 0.2, "eyes": 0.8}, "style_id": "pop_art", "extra_field": [1, 2]}"#
        let plan = try Contract.decode(StylizeJob.Payload.self, row).plan()
        XCTAssertEqual(plan.style, .popArt)
        XCTAssertEqual(plan.output, .jpeg)
        XCTAssertEqual([plan.parameters.jaw, plan.parameters.eyes, plan.parameters.mouth], [0.2, 0.8, 0.5])
        XCTAssertEqual(plan.distortions, [Distortion(.pinch, x: 10, y: 20, radius: 30, scale: 1.5)])
        let nulls = #"{"input": \#(Contract.storedInput), "params": null, "style_id": "comic", "warp": null, "output": "jpeg"}"#
        XCTAssertEqual(try Contract.decode(StylizeJob.Payload.self, nulls).plan().distortions, [])
    }

    func testBadOptionsAreRefusedNamingTheField() throws {
        let cases: [(String, String)] = [
            (#"{}"#, "style_id"),
            (#"{"style_id": "oil"}"#, "style_id"),
            (#"{"style_id": 5}"#, "style_id"),
            (#"{"style_id": "sketch", "params": [1]}"#, "params"),
            (#"{"style_id": "sketch", "params": {"eyes": 1.5}}"#, "params.eyes"),
            (#"{"style_id": "sketch", "params": {"jaw": "wide"}}"#, "params.jaw"),
            (#"{"style_id": "sketch", "params": {"nose": null}}"#, "params.nose"),
            (#"{"style_id": "sketch", "output": "gif"}"#, "output"),
            (#"{"style_id": "sketch", "output": null}"#, "output"),
            (#"{"style_id": "sketch", "warp": {"type": "bump"}}"#, "warp"),
        ]
        for (json, field) in cases {
            XCTAssertEqual(Contract.refusal { _ = try payload(json) }?.field, field, json)
        }
        XCTAssertEqual(Contract.refusal { _ = try payload(#"{"style_id": "oil"}"#) }?.message,
                       "unknown style_id 'oil'; one of cartoon, sketch, pop_art, watercolor, comic")
        XCTAssertNil(Contract.refusal { _ = try payload(#"{"style_id": "sketch", "params": null, "warp": null}"#) })
    }

    /// A payload written some other way gets the API's verdicts from the handler.
    func testTheHandlerChecksAStoredPayloadAsTheAPIDoes() throws {
        var payload = try payload(#"{"style_id": "sketch"}"#)
        payload.params = StylizeJob.Params(mouth: 2)
        XCTAssertEqual(Contract.refusal { _ = try payload.plan() }?.field, "params.mouth")
        payload.params = nil
        payload.styleID = "oil"
        XCTAssertEqual(Contract.refusal { _ = try payload.plan() }?.field, "style_id")
        payload.styleID = "sketch"
        payload.warp = [StylizeJob.Warp(type: "bump", x: 1, y: 1, radius: 5, scale: 3)]
        XCTAssertEqual(Contract.refusal { _ = try payload.plan() }?.field, "warp[0].scale")
    }

    func testWarpFieldIsCheckedNamingTheBadPart() throws {
        func parse(_ json: String) throws(JobOptionsError) -> [Distortion] {
            let value = try! JSONValue.parse(Data(json.utf8))
            return try StylizeJob.Warp.list(value).enumerated().map { (index, warp) throws(JobOptionsError) in try warp.distortion(index: index) }
        }
        let good = try parse(#"[{"type": "bump", "x": 10, "y": 20, "radius": 30, "scale": -0.4}, {"type": "pinch", "x": 1, "y": 2, "radius": 5, "scale": 1.5}]"#)
        XCTAssertEqual(good, [Distortion(.bump, x: 10, y: 20, radius: 30, scale: -0.4), Distortion(.pinch, x: 1, y: 2, radius: 5, scale: 1.5)])
        let cases: [(String, String)] = [
            (#"{"type": "bump"}"#, "warp"),
            (#"[1]"#, "warp[0]"),
            (#"[{"type": "swirl", "x": 1, "y": 1, "radius": 5, "scale": 0.5}]"#, "warp[0].type"),
            (#"[{"type": "bump", "x": 1, "y": 1, "radius": 5, "scale": 1.5}]"#, "warp[0].scale"),
            (#"[{"type": "pinch", "x": 1, "y": 1, "radius": 5, "scale": -0.5}]"#, "warp[0].scale"),
            (#"[{"type": "bump", "x": 1, "y": 1, "radius": 0, "scale": 0.5}]"#, "warp[0].radius"),
            (#"[{"type": "bump", "x": "left", "y": 1, "radius": 5, "scale": 0.5}]"#, "warp[0].x"),
            (#"[{"type": "bump", "x": 1, "radius": 5, "scale": 0.5}]"#, "warp[0].y"),
            ("[" + Array(repeating: #"{"type": "bump", "x": 1, "y": 1, "radius": 5, "scale": 0.5}"#, count: 33).joined(separator: ",") + "]", "warp"),
        ]
        for (json, field) in cases {
            XCTAssertThrowsError(try parse(json), json) { error in
                XCTAssertEqual((error as? JobOptionsError)?.field, field, json)
            }
        }
    }

    func testResultIsTheJSONClientsRead() throws {
        let result = StylizeJob.Result(resultBlob: "jobs/1/result.jpg", styleID: "sketch", width: 512, height: 384,
                                       contentType: "image/jpeg", bytes: 4096)
        let text = #"{"bytes":4096,"content_type":"image/jpeg","height":384,"result_blob":"jobs/1/result.jpg","style_id":"sketch","width":512}"#
        XCTAssertEqual(try Contract.text(result), text)
        XCTAssertEqual(try Contract.decode(StylizeJob.Result.self, text), result)
        XCTAssertEqual(ResultFields.of(result: text)?.resultBlob, "jobs/1/result.jpg")
        var placeheld = result
        placeheld.thumbhash = "3wcKPZpwd3dwiIeHeHd3d4CACPh4"
        XCTAssertEqual(try Contract.decode(StylizeJob.Result.self, try Contract.text(placeheld)), placeheld)
        XCTAssertTrue(try Contract.text(placeheld).contains(#""thumbhash":"3wcKPZpwd3dwiIeHeHd3d4CACPh4""#))
    }
}
