import AtelierJobs
import Foundation
import XCTest

/// The analysis contract: the `advisor` choice becomes the advisors the job runs (so a retry
/// reviews with the same ones), `source_name` rides along, and the result and progress JSON.
final class AnalysisJobContractTests: XCTestCase {
    let contract = AnalysisJob(roster: ["ansel_adams", "edward_weston", "piet_mondrian"])

    func payload(_ json: String) throws -> AnalysisJob.Payload {
        try contract.payload(options: Contract.options(json), input: Contract.input)
    }

    func testTheAdvisorChoiceIsResolvedOnce() throws {
        XCTAssertEqual(try payload(#"{}"#).advisors, contract.roster)
        XCTAssertEqual(try payload(#"{"advisor": "all"}"#).advisors, contract.roster)
        XCTAssertEqual(try payload(#"{"advisor": " Piet_Mondrian , ansel_adams,piet_mondrian"}"#).advisors, ["piet_mondrian", "ansel_adams"])
        XCTAssertEqual(try payload(#"{"advisor": "random"}"#).advisors?.count, 1)
        let stored = try payload(#"{"advisor": "edward_weston", "source_name": "sunset", "advisors": ["ignored"]}"#)
        XCTAssertEqual(try Contract.text(stored), """
            {"advisors":["edward_weston"],"input":{"blob":"jobs/0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60/input.png","bytes":2345,\
            "content_type":"image/png","format":"png"},"source_name":"sunset"}
            """)
        XCTAssertNil(try payload(#"{"source_name": 5}"#).sourceName, "a source name that is not a string is not kept")
        for bad in [#"{"advisor": "banksy"}"#, #"{"advisor": ""}"#, #"{"advisor": ","}"#, #"{"advisor": 3}"#] {
            XCTAssertEqual(Contract.refusal { _ = try payload(bad) }?.field, "advisor", bad)
        }
    }

    func testRowsWrittenBeforeTheContractStillDecode() throws {
        let row = #"{"input": \#(Contract.storedInput), "advisors": ["ansel_adams"], "source_name": "photo"}"#
        let payload = try Contract.decode(AnalysisJob.Payload.self, row)
        XCTAssertEqual(payload, AnalysisJob.Payload(input: Contract.input, advisors: ["ansel_adams"], sourceName: "photo"))
        XCTAssertNil(try Contract.decode(AnalysisJob.Payload.self, #"{"input": \#(Contract.storedInput)}"#).advisors)
    }

    func testResultAndProgressAreTheJSONClientsRead() throws {
        let result = AnalysisJob.Result(
            resultBlob: "jobs/1/result.html", grade: "B+", overall: 7.5, caption: "A tree",
            advisors: [AnalysisJob.AdvisorResult(id: "ansel_adams", name: "Ansel Adams", grade: "B", overall: 7,
                                                 scores: ["composition": 7, "lighting": 8], proseBy: "atelier-local templates")])
        let text = #"{"advisors":[{"grade":"B","id":"ansel_adams","name":"Ansel Adams","overall":7,"prose_by":"atelier-local templates","scores":{"composition":7,"lighting":8}}],"caption":"A tree","content_type":"text/html; charset=utf-8","grade":"B+","overall":7.5,"result_blob":"jobs/1/result.html"}"#
        XCTAssertEqual(try Contract.text(result), text)
        XCTAssertEqual(try Contract.decode(AnalysisJob.Result.self, text), result)
        XCTAssertEqual(ResultFields.of(result: text), try Contract.decode(ResultFields.self, #"{"result_blob": "jobs/1/result.html", "caption": "A tree"}"#))
        XCTAssertEqual(try Contract.text(AnalysisJob.Progress(currentAdvisor: 2, totalAdvisors: 3, stepPhase: "analyzing")),
                       #"{"current_advisor":2,"step_phase":"analyzing","total_advisors":3}"#)
    }
}
