import AtelierJobs
import Foundation
import XCTest

/// `noop`, `sleep`, `fail`, `echo`, `crash`: the diagnostic kinds' payloads and results.
final class DiagnosticJobsTests: XCTestCase {
    func testSleep() throws {
        let payload = try SleepJob().payload(options: Contract.options(#"{"ms": 250.0}"#), input: nil)
        XCTAssertEqual(try Contract.text(payload), #"{"ms":250}"#)
        XCTAssertEqual(try Contract.decode(SleepJob.Payload.self, #"{"ms": 250}"#).duration(), 250)
        for bad in [#"{}"#, #"{"ms": "soon"}"#, #"{"ms": -1}"#, #"{"ms": 3600001}"#, #"{"ms": 1.5}"#, #"{"ms": true}"#] {
            XCTAssertEqual(Contract.refusal { _ = try SleepJob().payload(options: Contract.options(bad), input: nil) }?.field, "options.ms", bad)
        }
        XCTAssertEqual(Contract.refusal { _ = try SleepJob.Payload(ms: 4_000_000).duration() }?.field, "options.ms")
        XCTAssertEqual(try Contract.text(SleepJob.Result(sleptMs: 250)), #"{"slept_ms":250}"#)
    }

    func testFail() throws {
        let payload = try FailJob().payload(options: Contract.options(#"{"message": "upstream 503", "permanent": true, "succeed_on_attempt": 2}"#), input: nil)
        XCTAssertEqual(try Contract.text(payload), #"{"message":"upstream 503","permanent":true,"succeed_on_attempt":2}"#)
        XCTAssertEqual(try Contract.decode(FailJob.Payload.self, #"{"message": "nope"}"#), FailJob.Payload(message: "nope"))
        XCTAssertEqual(Contract.refusal { _ = try FailJob().payload(options: Contract.options(#"{"permanent": "yes"}"#), input: nil) }?.field,
                       "options.permanent")
        XCTAssertEqual(try Contract.text(FailJob.Result(succeededOnAttempt: 2)), #"{"succeeded_on_attempt":2}"#)
    }

    func testCrash() throws {
        XCTAssertEqual(try Contract.text(CrashJob().payload(options: Contract.options(#"{"after_ms": 200}"#), input: nil)), #"{"after_ms":200}"#)
        XCTAssertEqual(try Contract.text(CrashJob().payload(options: [:], input: nil)), #"{"after_ms":0}"#, "at once by default")
        XCTAssertEqual(try Contract.decode(CrashJob.Payload.self, #"{"after_ms": 5}"#).delay(), 5)
        for bad in [#"{"after_ms": "soon"}"#, #"{"after_ms": -1}"#, #"{"after_ms": 60001}"#, #"{"after_ms": 1.5}"#] {
            XCTAssertEqual(Contract.refusal { _ = try CrashJob().payload(options: Contract.options(bad), input: nil) }?.field, "options.after_ms", bad)
        }
        XCTAssertEqual(Contract.refusal { _ = try CrashJob.Payload(afterMs: 100_000).delay() }?.field, "options.after_ms")
    }

    func testNoopAndEcho() throws {
        XCTAssertEqual(try Contract.text(NoopJob().payload(options: Contract.options(#"{"anything": 1}"#), input: nil)), "{}")
        XCTAssertEqual(try NoopJob().payload(options: [:], input: Contract.input).input, Contract.input)
        let echo = try EchoJob().payload(options: [:], input: Contract.input)
        XCTAssertEqual(try Contract.decode(EchoJob.Payload.self, #"{"input": \#(Contract.storedInput)}"#), echo)
        XCTAssertEqual(try Contract.text(EchoJob.Result(resultBlob: "jobs/1/result.png", bytes: 3, contentType: "image/png")),
                       #"{"bytes":3,"content_type":"image/png","result_blob":"jobs/1/result.png"}"#)
    }
}
