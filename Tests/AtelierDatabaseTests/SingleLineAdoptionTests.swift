import AtelierDatabase
import AtelierQueue
import AtelierTestSupport
import Foundation
import PostgresNIO
import XCTest

/// A database migrated before the queue and the apps had lines of their own (the single line, at
/// its last version 33) is adopted as version 1 of both, and is then the schema the lines make.
final class SingleLineAdoptionTests: XCTestCase {
    private static var fixture: String {
        get throws {
            try String(contentsOf: TestDatabase.repositoryRoot.appendingPathComponent("Tests/AtelierDatabaseTests/Fixtures/single-line-v33.sql"),
                       encoding: .utf8)
        }
    }

    /// Runs a dump as a restore does: in one transaction, function bodies not checked (they name
    /// tables the dump creates after them).
    private static func load(_ db: TestDatabase, _ script: String) async throws {
        try await db.queue.client.withTransaction(logger: db.queue.logger) { connection in
            try await connection.query("SET LOCAL check_function_bodies = off", logger: db.queue.logger)
            for statement in SQLScript.statements(in: script) {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: db.queue.logger)
            }
        }
    }

    /// Tables, columns, constraints, indexes, functions, triggers and views of the public schema,
    /// one line each, sorted: two databases print the same text when their schemas are the same.
    /// The migrator's own record is left out (its shape is what adoption changes).
    private static func fingerprint(_ db: TestDatabase) async throws -> [String] {
        let rows = try await db.queue.client.query("""
            SELECT item FROM (
                SELECT format('column %s.%s %s %s null=%s identity=%s', c.table_name, c.column_name, c.data_type,
                              coalesce(c.column_default, '-'), c.is_nullable, coalesce(c.identity_generation, '-'))
                  FROM information_schema.columns c WHERE c.table_schema = 'public'
                UNION ALL
                SELECT format('table %s %s', relname, coalesce(array_to_string(reloptions, ','), '-'))
                  FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'v', 'S')
                UNION ALL
                SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
                  FROM pg_constraint WHERE connamespace = 'public'::regnamespace
                UNION ALL
                SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
                UNION ALL
                SELECT format('function %s %s', p.oid::regprocedure, md5(pg_get_functiondef(p.oid)))
                  FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
                   AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
                UNION ALL
                SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
                UNION ALL
                SELECT format('view %s %s', viewname, md5(definition)) FROM pg_views WHERE schemaname = 'public'
                UNION ALL
                SELECT 'extension ' || extname FROM pg_extension
            ) AS schema(item)
            WHERE item NOT LIKE '%atelier_schema_migrations%'
            ORDER BY item COLLATE "C"
            """)
        var items: [String] = []
        for try await item in rows.decode(String.self) { items.append(item) }
        return items
    }

    func testADatabaseAtTheSingleLinesLastVersionIsAdoptedAsTheLinesMakeIt() async throws {
        let adopted = try await TestDatabase.make(lines: [])
        let fresh = try await TestDatabase.make()
        do {
            try await Self.load(adopted, try Self.fixture)
            let migrator = try Migrator(database: adopted.queue.database, lines: TestDatabase.allLines)
            let report = try await migrator.migrate()
            XCTAssertTrue(report.adoptedSingleLine)
            XCTAssertEqual(report.applied, [], "version 33 of the single line is version 1 of both lines: nothing to apply")
            XCTAssertEqual(report.versions, ["queue": 1, "apps": 1])
            XCTAssertEqual(report.editedAfterApply, [])
            let rows = try await migrator.appliedMigrations()
            XCTAssertEqual(rows.map { "\($0.line) \($0.version) \($0.name)" }, ["apps 1 apps", "queue 1 queue"])
            try await Migrator.requireCurrent(database: adopted.queue.database, lines: TestDatabase.allLines)

            let adoptedSchema = try await Self.fingerprint(adopted)
            let freshSchema = try await Self.fingerprint(fresh)
            XCTAssertGreaterThan(freshSchema.count, 200, "the fingerprint reads the schema")
            XCTAssertEqual(adoptedSchema.filter { !freshSchema.contains($0) }, [], "in the adopted database only")
            XCTAssertEqual(freshSchema.filter { !adoptedSchema.contains($0) }, [], "in the lines' database only")

            let again = try await migrator.migrate()
            XCTAssertFalse(again.adoptedSingleLine, "adopted once")
            XCTAssertEqual(again.applied, [])
        } catch { XCTFail(String(reflecting: error)) }
        await adopted.drop()
        await fresh.drop()
    }

    func testADatabaseShortOfTheSingleLinesLastVersionIsRefusedAndLeftAsItWas() async throws {
        let db = try await TestDatabase.make(lines: [])
        do {
            try await Self.load(db, try Self.fixture)
            try await db.execute("DELETE FROM atelier_schema_migrations WHERE version > 30")
            let migrator = try Migrator(database: db.queue.database, lines: TestDatabase.allLines)
            do {
                try await migrator.migrate()
                XCTFail("a database at version 30 of the single line must be brought to 33 by an older build first")
            } catch {
                let message = DatabaseErrorText.describe(error)
                XCTAssertTrue(message.contains("at version 30 of 33") && message.contains("908ca42"), message)
            }
            let recorded = try await db.scalar("SELECT max(version) FROM atelier_schema_migrations", as: Int.self)
            XCTAssertEqual(recorded, 30, "the single line's record is left as it was")
            do {
                try await Migrator.requireCurrent(database: db.queue.database, lines: TestDatabase.allLines)
                XCTFail("workers must not start on it")
            } catch {
                XCTAssertTrue(DatabaseErrorText.describe(error).contains("run `atelier migrate`"), DatabaseErrorText.describe(error))
            }
        } catch { XCTFail(String(reflecting: error)) }
        await db.drop()
    }
}
