import AsyncHTTPClient
import AtelierAPITestSupport
import AtelierQueue
import AtelierTestSupport
import AtelierWorker
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import XCTest

// What the examples share, kept out of their way: a request sent with exactly the headers the
// example shows, part of an event stream read the way an EventSource reads it, a worker run for
// the length of one example. The servers, databases and images are the real ones
// (AtelierAPITestSupport's server with every route and a worker; a database per example).

extension APITestCase {
    /// Sends one request with exactly `headers` — no credential is added for you — as a client would.
    func send(_ method: HTTPMethod, _ url: String, headers: [String: String] = [:], body: String? = nil) async throws -> Reply {
        try await send(method, url, headers: headers, body: body.map { Data($0.utf8) })
    }

    /// The same with a body of bytes (a multipart form).
    func send(_ method: HTTPMethod, _ url: String, headers: [String: String] = [:], body: Data?) async throws -> Reply {
        try await request(method, url, token: .some(nil), headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                          body: body)
    }

    /// Opens `url` and reads its Server-Sent Events as an EventSource does, until `stop` picks
    /// one (then it hangs up, as a client losing its connection would) or the server ends the stream.
    func readEvents(_ url: String, headers: [String: String],
                    until stop: (ServerSentEvent) -> Bool = { _ in false }) async throws -> [ServerSentEvent] {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await http.execute(request, timeout: .seconds(60))
        XCTAssertEqual(response.status.code, 200)
        var text = ""
        for try await chunk in response.body {
            text += String(buffer: chunk)
            guard let end = text.range(of: "\n\n", options: .backwards) else { continue }
            let whole = Self.parseEventStream(String(text[..<end.upperBound])).events
            if let index = whole.firstIndex(where: stop) { return Array(whole[...index]) }
        }
        return Self.parseEventStream(text).events
    }
}

extension DatabaseTestCase {
    /// A quiet logger for the workers the examples start.
    var logger: Logger {
        var logger = Logger(label: "example")
        logger.logLevel = .error
        return logger
    }

    /// Runs `worker` until the example ends, then stops it as SIGTERM would (drain, deregister).
    func start(_ worker: Worker) {
        let running = Task { try await worker.run() }
        addTeardownBlock {
            worker.stop()
            try await running.value
        }
    }

    /// Reads the job until it has finished (succeeded, failed or cancelled).
    func waitUntilFinished(_ id: UUID) async throws -> Job {
        var job = try await queue.job(id: id)
        try await db.eventually("job \(id) finishes") {
            job = try await queue.job(id: id)
            return job.state.isFinished
        }
        return job
    }
}

extension WorkerConfiguration {
    /// The defaults, except that a drain that hangs never exits the test process and the
    /// fallback poll (for jobs whose retry time comes: nothing notifies then) is 200 ms.
    static var example: WorkerConfiguration {
        var configuration = WorkerConfiguration()
        configuration.pollInterval = .milliseconds(200)
        configuration.drainTimeout = .seconds(5)
        configuration.exitIfDrainHangs = false
        return configuration
    }
}
