import AtelierDatabase
import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

final class MigrationTests: XCTestCase {
    func testRerunningMigrateIsANoOp() async throws {
        let db = try await TestDatabase.make()
        do {
            let migrator = try Migrator(client: db.queue.client, logger: db.queue.logger, migrations: Migration.builtIn(), definitions: QueueSchema.definitions)
            let report = try await migrator.migrate()
            XCTAssertEqual(report.applied, [], "the database was migrated by make(); a second run applies nothing")
            XCTAssertEqual(report.currentVersion, Schema.version)
            XCTAssertEqual(report.editedAfterApply, [])
            try await Migrator.requireCurrent(client: db.queue.client, logger: db.queue.logger, definitions: QueueSchema.definitions)
        } catch { XCTFail("\(error)") }
        await db.drop()
    }

    func testDatabaseNewerThanTheCodeIsRefused() async throws {
        let db = try await TestDatabase.make()
        try await db.execute("INSERT INTO atelier_schema_migrations (version, name, checksum) VALUES (\(Schema.version + 1), 'future', 'x')")
        let migrator = try Migrator(client: db.queue.client, logger: db.queue.logger, migrations: Migration.builtIn(), definitions: QueueSchema.definitions)
        do {
            try await migrator.migrate()
            XCTFail("migrate must refuse a database newer than the code")
        } catch {
            XCTAssertTrue(DatabaseErrorText.describe(error).contains("newer than this build"), DatabaseErrorText.describe(error))
        }
        do {
            try await Migrator.requireCurrent(client: db.queue.client, logger: db.queue.logger, definitions: QueueSchema.definitions)
            XCTFail("workers must refuse to start on a newer schema")
        } catch {
            XCTAssertEqual(DatabaseErrorText.queueError(error), .schema(DatabaseErrorText.describe(error)))
        }
        await db.drop()
    }

    func testTheBuiltInMigrationsAreTheCheckoutsFiles() throws {
        // Built in by the EmbedMigrations plugin: the same versions, names and bytes as the files.
        let onDisk = try Migration.load(from: TestDatabase.migrationsDirectory)
        let builtIn = try Migration.builtIn()
        XCTAssertEqual(builtIn, onDisk)
        XCTAssertEqual(builtIn.last?.version, Schema.version, "the schema version is the newest migration's")
        XCTAssertEqual(builtIn.map(\.version), Array(1...Schema.version))
        XCTAssertGreaterThanOrEqual(Schema.version, 8)
    }

    func testMigrationFilesMustBeNumberedWithoutGaps() throws {
        XCTAssertThrowsError(try Migration.load(from: URL(fileURLWithPath: "/nonexistent-atelier-migrations")))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-migrations-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for file in ["0001_a.sql", "0003_c.sql"] {
            try Data("SELECT 1;".utf8).write(to: directory.appendingPathComponent(file))
        }
        XCTAssertThrowsError(try Migration.load(from: directory)) { error in
            XCTAssertTrue("\(error)".contains("without gaps"), "\(error)")
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
