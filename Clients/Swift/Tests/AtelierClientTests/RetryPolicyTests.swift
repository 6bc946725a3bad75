@testable import AtelierClient
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import XCTest

/// `Retry-After` on 429 and 503: waited as the server says, within the policy's count and total,
/// and only for a body that can be sent again. The answers come from a scripted transport (the
/// flows against a real server are CaricatureFlowTests); the waits are recorded, not slept.
final class RetryPolicyTests: XCTestCase {
    /// Answers each request with the next status of its script, counting the requests.
    final class ScriptedTransport: ClientTransport {
        let statuses: Mutex<[Int]>
        let sent = Mutex(0)

        init(_ statuses: [Int]) { self.statuses = Mutex(statuses) }

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
            sent.withLock { $0 += 1 }
            let status = statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            var response = HTTPResponse(status: .init(code: status))
            if status == 429 || status == 503 { response.headerFields[.retryAfter] = "2" }
            return (response, HTTPBody("{}"))
        }
    }

    private func run(_ statuses: [Int], policy: RetryPolicy, body: HTTPBody? = nil) async throws -> (status: Int, sent: Int, waits: [Duration]) {
        let transport = ScriptedTransport(statuses)
        let waits = Mutex<[Duration]>([])
        let middleware = RetryAfterMiddleware(policy: policy) { wait in waits.withLock { $0.append(wait) } }
        let (response, _) = try await middleware.intercept(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/jobs"), body: body,
            baseURL: URL(string: "http://127.0.0.1")!, operationID: "listJobs"
        ) { request, body, base in try await transport.send(request, body: body, baseURL: base, operationID: "listJobs") }
        return (response.status.code, transport.sent.withLock { $0 }, waits.withLock { $0 })
    }

    func testA429IsTriedAgainAfterItsRetryAfter() async throws {
        let outcome = try await run([429, 503], policy: RetryPolicy())
        XCTAssertEqual(outcome.status, 200)
        XCTAssertEqual(outcome.sent, 3)
        XCTAssertEqual(outcome.waits, [.seconds(2), .seconds(2)])
    }

    func testTheRetriesStopAtTheirCountAndTheirTotal() async throws {
        let counted = try await run([429, 429, 429, 429], policy: RetryPolicy(maxRetries: 2, maxWait: .seconds(60)))
        XCTAssertEqual(counted.status, 429, "after two retries the third answer is the call's")
        XCTAssertEqual(counted.sent, 3)
        let timed = try await run([503, 503, 503], policy: RetryPolicy(maxRetries: 5, maxWait: .seconds(3)))
        XCTAssertEqual(timed.status, 503, "a second wait of 2 s would pass the 3 s cap")
        XCTAssertEqual(timed.waits, [.seconds(2)])
        let never = try await run([429], policy: .never)
        XCTAssertEqual(never.status, 429)
        XCTAssertEqual(never.sent, 1)
    }

    func testABodyThatCannotBeSentAgainIsNotRetried() async throws {
        let once = HTTPBody(AsyncStream<ArraySlice<UInt8>> { $0.yield([1, 2, 3]); $0.finish() }, length: .known(3), iterationBehavior: .single)
        let outcome = try await run([429], policy: RetryPolicy(), body: once)
        XCTAssertEqual(outcome.status, 429)
        XCTAssertEqual(outcome.sent, 1)
    }
}
