import AtelierAppsSchema
import AtelierDatabase
import AtelierTestSupport
import AtelierQueue
import Foundation
import Logging
import PostgresNIO
import XCTest

final class MigrationTests: XCTestCase {
    func testRerunningMigrateIsANoOp() async throws {
        let db = try await TestDatabase.make()
        do {
            let migrator = try Migrator(database: db.queue.database, lines: TestDatabase.allLines)
            let report = try await migrator.migrate()
            XCTAssertEqual(report.applied, [], "the database was migrated by make(); a second run applies nothing")
            XCTAssertEqual(report.versions, ["queue": QueueSchema.line.version, "apps": AppsSchema.line.version])
            XCTAssertEqual(report.editedAfterApply, [])
            XCTAssertFalse(report.adoptedSingleLine)
            let rows = try await migrator.appliedMigrations()
            XCTAssertEqual(rows.map { "\($0.line) \($0.version)" }, ["apps 1", "queue 1"])
            try await Migrator.requireCurrent(database: db.queue.database, lines: TestDatabase.allLines)
        } catch { XCTFail("\(error)") }
        await db.drop()
    }

    /// Each line is refused on its own: a database further along the apps' line than this build
    /// stops `migrate` and the start-up check, whatever the queue's line says.
    func testDatabaseNewerThanTheCodeIsRefused() async throws {
        let db = try await TestDatabase.make()
        try await db.execute("INSERT INTO atelier_schema_migrations (line, version, name, checksum) VALUES ('apps', \(AppsSchema.line.version + 1), 'future', 'x')")
        let migrator = try Migrator(database: db.queue.database, lines: TestDatabase.allLines)
        do {
            try await migrator.migrate()
            XCTFail("migrate must refuse a database newer than the code")
        } catch {
            let message = DatabaseErrorText.describe(error)
            XCTAssertTrue(message.contains("apps schema is at version \(AppsSchema.line.version + 1), newer than this build"), message)
        }
        do {
            try await Migrator.requireCurrent(database: db.queue.database, lines: TestDatabase.allLines)
            XCTFail("workers must refuse to start on a newer schema")
        } catch {
            XCTAssertEqual(DatabaseErrorText.queueError(error), .schema(DatabaseErrorText.describe(error)))
        }
        do {
            try await Migrator.requireCurrent(database: db.queue.database, lines: [QueueSchema.line])
        } catch { XCTFail("the queue's line alone is current: \(error)") }
        await db.drop()
    }

    func testTheBuiltInAppsLineIsTheCheckoutsFiles() throws {
        let onDisk = try Migration.load(from: TestDatabase.repositoryRoot.appendingPathComponent("Sources/AtelierAppsSchema/Migrations"))
        XCTAssertEqual(AppsSchema.line.migrations, onDisk)
        XCTAssertEqual(AppsSchema.line.version, onDisk.count)
        XCTAssertEqual(AppsSchema.line.definitions, [])
    }

    func testMigrationFilesMustBeNumberedWithoutGaps() throws {
        XCTAssertThrowsError(try Migration.load(from: URL(fileURLWithPath: "/nonexistent-atelier-migrations")))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-migrations-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for file in ["0001_a.sql", "0003_c.sql"] {
            try Data("SELECT 1;".utf8).write(to: directory.appendingPathComponent(file))
        }
        let migrations = try Migration.load(from: directory)
        XCTAssertThrowsError(try MigrationLine(name: "test", migrations: migrations)) { error in
            XCTAssertTrue("\(error)".contains("without gaps"), "\(error)")
        }
        XCTAssertThrowsError(try MigrationLine(name: "no spaces", migrations: Array(migrations.prefix(1))))
        let line = try MigrationLine(name: "test", migrations: Array(migrations.prefix(1)))
        let nowhere = Database(url: try DatabaseURL(parsing: "postgres://x@127.0.0.1:1/x"), logger: Logger(label: "test"))
        XCTAssertThrowsError(try Migrator(database: nowhere, lines: [line, line])) { error in
            XCTAssertTrue("\(error)".contains("given twice"), "\(error)")
        }
    }

    func testSQLScriptSplitsOnlyTopLevelSemicolons() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE t (a text DEFAULT 'x;y', "b;c" int);
            /* block; comment */ CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM 1; RETURN NULL; END $$;
            CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$ SELECT 'it''s;' $body$;
            SELECT $1;
            """
        let statements = SQLScript.statements(in: script)
        XCTAssertEqual(statements.count, 4, "\(statements)")
        XCTAssertTrue(statements[0].hasSuffix(#"CREATE TABLE t (a text DEFAULT 'x;y', "b;c" int)"#))
        XCTAssertTrue(statements[1].contains("PERFORM 1; RETURN NULL; END $$"))
        XCTAssertTrue(statements[2].hasSuffix("SELECT 'it''s;' $body$"))
        XCTAssertEqual(statements[3], "SELECT $1")
    }
}
