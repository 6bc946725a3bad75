import AtelierQueue
import AtelierTestSupport
import AtelierWorker
import Foundation
import XCTest

/// Write a handler for a new kind: a `JobHandler` names its kind, decodes its payload, may report
/// progress, and returns a result; a `Worker` given the handler claims and runs jobs of that
/// kind. A payload the handler cannot decode fails the job at once, naming the field (no retry:
/// the same payload would fail the same way).
final class WriteAHandler: DatabaseTestCase {
    /// `word_count`: `{"text": "…"}` → `{"words": N}`.
    struct WordCountHandler: JobHandler {
        let kind = "word_count"

        struct Payload: Decodable { var text: String }
        struct Result: Codable { var words: Int }

        func run(_ context: JobContext) async throws -> JobResult {
            let payload = try context.payload(as: Payload.self)
            try await context.progress(50, step: "counting")
            return try .encode(Result(words: payload.text.split(separator: " ").count))
        }
    }

    func testAWorkerRunsTheNewKindToItsResult() async throws {
        let worker = try Worker(queue: queue, handlers: HandlerRegistry([WordCountHandler()]),
                                configuration: .example, logger: logger)
        start(worker)

        let id = try await queue.enqueue(NewJob(kind: "word_count", payload: #"{"text": "the quick brown fox"}"#)).id
        let job = try await waitUntilFinished(id)
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        let result = try JSONDecoder().decode(WordCountHandler.Result.self, from: Data(try XCTUnwrap(job.result).utf8))
        XCTAssertEqual(result.words, 4)
        try await XCTAssertEqualAsync(try await queue.events(jobID: id).map(\.type), ["running", "progress", "succeeded"])

        let typo = try await queue.enqueue(NewJob(kind: "word_count", payload: #"{"txt": "a typo"}"#)).id
        let failed = try await waitUntilFinished(typo)
        XCTAssertEqual(failed.state, .failed)
        XCTAssertEqual(failed.attempt, 1, "a payload that does not decode is not retried")
        XCTAssertTrue(failed.error?.contains("missing field 'text'") == true, failed.error ?? "")
    }
}
