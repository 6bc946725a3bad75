@testable import AtelierAPI
import AtelierQueue
import AtelierTestSupport
import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore
import Synchronization
import XCTest

/// The hub's promises to the database: a keep-alive tick writes a comment and reads nothing; a
/// listener reconnect wakes every stream to re-read, but in batches with pauses between them.
/// Driven by hand (ticks and wakes called directly, pauses recorded), so nothing here waits on
/// a clock or a race.
final class EventHubTests: DatabaseTestCase {
    private func hub(reconnectSpread: Duration = .seconds(2)) -> EventHub {
        // The notifier is never run: this hub hears only what the test tells it.
        EventHub(notifier: Notifier(url: db.url, channels: [], logger: Logger(label: "event-hub-test")),
                 reconnectSpread: reconnectSpread)
    }

    func testKeepAliveTicksWriteACommentAndReadNothing() async throws {
        let job = try await queue.enqueue(NewJob(kind: "noop", payload: "{}", owner: "alice")).id
        let hub = hub()
        let reads = Atomic<Int>(0)
        let feed = JobEventFeed(hub: hub) { [queue] jobID, after, limit in
            reads.add(1, ordering: .relaxed)
            return try await queue.events(jobID: jobID, after: after, limit: limit)
        }
        let response = try feed.response(jobID: job, principal: Principal(owner: "alice", name: "alice", tokenHash: "alice's token"),
                                         finishedAtStart: false, after: 0, prelude: ": hello\n\n",
                                         formatter: TypeNames())
        let (chunks, writer) = ChunkWriter.make()
        let streaming = Task { try await response.body.write(writer) }
        var received = chunks.makeAsyncIterator()
        let prelude = await received.next()
        XCTAssertEqual(prelude, ": hello\n\n")
        // The stream read the job's events (none yet) before it began to wait: each tick below
        // finds it waiting.
        for _ in 0..<5 {
            hub.tick()
            let comment = await received.next()
            XCTAssertEqual(comment, ": keep-alive\n\n")
        }
        XCTAssertEqual(reads.load(ordering: .relaxed), 1, "one read when the stream opened, none for five keep-alives")

        // A wake reads again: an event written since is sent.
        _ = try await queue.cancel(id: job, owner: "alice")
        await hub.wakeAllSpread()
        let cancelled = await received.next()
        XCTAssertEqual(cancelled, "cancelled\n")
        XCTAssertEqual(reads.load(ordering: .relaxed), 2, "the wake read once")

        hub.endStreams(ofTokens: ["alice's token"])
        let end = await received.next()
        XCTAssertNil(end, "the stream ended when its token was revoked")
        try await streaming.value
    }

    func testAReconnectWakesEveryStreamInBatchesWithPausesBetween() async throws {
        let hub = hub(reconnectSpread: .milliseconds(900))
        let streams = (0..<250).map { _ in hub.subscribe(UUID()) }
        let pauses = Mutex<[Duration]>([])
        await hub.wakeAllSpread(batch: 100) { interval in pauses.withLock { $0.append(interval) } }
        XCTAssertEqual(pauses.withLock { $0 }, [.milliseconds(300), .milliseconds(300)],
                       "250 streams: three batches, the spread divided between them")
        for stream in streams {
            var signals = stream.makeAsyncIterator()
            let signal = await signals.next()
            XCTAssertEqual(signal, .events, "every stream is told to re-read")
        }
        // A hub with fewer streams than a batch wakes them at once, with no pause.
        let small = self.hub()
        let few = (0..<3).map { _ in small.subscribe(UUID()) }
        let smallPauses = Mutex(0)
        await small.wakeAllSpread(batch: 100) { _ in smallPauses.withLock { $0 += 1 } }
        XCTAssertEqual(smallPauses.withLock { $0 }, 0)
        for stream in few {
            var signals = stream.makeAsyncIterator()
            let signal = await signals.next()
            XCTAssertEqual(signal, .events)
        }
    }
}

/// Writes each event as its type on a line; never ends the stream.
private struct TypeNames: JobEventFormatter {
    mutating func frames(for event: JobEvent) async throws -> (text: String, finished: Bool) {
        ("\(event.type)\n", false)
    }
}

/// A response body writer that hands each write to the test as text.
private struct ChunkWriter: ResponseBodyWriter {
    let continuation: AsyncStream<String>.Continuation

    static func make() -> (AsyncStream<String>, ChunkWriter) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        return (stream, ChunkWriter(continuation: continuation))
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        continuation.yield(String(buffer: buffer))
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        continuation.finish()
    }
}
