import AtelierDatabase
import AtelierQueue
import AtelierTestSupport
import AtelierWorker
import Foundation
import XCTest

/// Embed the queue in an application of your own: migrate with the queue's line alone
/// (`QueueSchema.line`: its tables, functions and views, PostgreSQL and nothing else — no
/// extension, none of the photo apps' tables), then enqueue and run jobs as usual. Add your
/// own tables as a line of your own after it: `lines: [QueueSchema.line, yourLine]`.
final class EmbedTheQueueAlone: DatabaseTestCase {
    override var migrationLines: [MigrationLine] { [QueueSchema.line] }

    struct GreetHandler: JobHandler {
        let kind = "greet"
        struct Payload: Decodable { var name: String }
        struct Result: Codable { var greeting: String }

        func run(_ context: JobContext) async throws -> JobResult {
            try .encode(Result(greeting: "hello, " + context.payload(as: Payload.self).name))
        }
    }

    func testAWorkerRunsJobsOnADatabaseWithTheQueuesLineAlone() async throws {
        // What your deploy step runs (here again, so a no-op: setUp migrated the same way).
        let report = try await Migrator(database: queue.database, lines: [QueueSchema.line]).migrate()
        XCTAssertEqual(report.versions, ["queue": QueueSchema.line.version])

        let tables = try await db.scalar("""
            SELECT string_agg(relname, ' ' ORDER BY relname) FROM pg_class
             WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'
            """, as: String.self)
        XCTAssertEqual(tables, "atelier_schema_definitions atelier_schema_migrations audit_log bulk_actions fair_clock "
                           + "job_count_deltas job_counts job_events jobs kind_limits owner_weights queues schedules workers")
        let extensions = try await db.scalar("SELECT count(*)::int FROM pg_extension WHERE extname <> 'plpgsql'", as: Int.self)
        XCTAssertEqual(extensions, 0, "the queue needs no extension")

        let worker = try Worker(queue: queue, handlers: HandlerRegistry([GreetHandler()]), configuration: .example, logger: logger)
        start(worker)
        let ids = try await queue.enqueue(["Ada", "Grace", "Edsger"].map { NewJob(kind: "greet", payload: #"{"name": "\#($0)"}"#, owner: $0) }).map(\.id)
        for (id, name) in zip(ids, ["Ada", "Grace", "Edsger"]) {
            let job = try await waitUntilFinished(id)
            XCTAssertEqual(job.state, .succeeded, job.error ?? "")
            let result = try JSONDecoder().decode(GreetHandler.Result.self, from: Data(try XCTUnwrap(job.result).utf8))
            XCTAssertEqual(result.greeting, "hello, \(name)")
        }
    }
}
