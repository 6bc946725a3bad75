import AtelierTestSupport
import AtelierQueue
import XCTest

final class MigrationTests: XCTestCase {
    func testRerunningMigrateIsANoOp() async throws {
        let db = try await TestDatabase.make()
        do {
            let migrator = try Migrator(queue: db.queue, migrations: Migration.load(from: TestDatabase.migrationsDirectory))
            let report = try await migrator.migrate()
            XCTAssertEqual(report.applied, [], "the database was migrated by make(); a second run applies nothing")
            XCTAssertEqual(report.currentVersion, Schema.version)
            XCTAssertEqual(report.editedAfterApply, [])
            try await Migrator.requireCurrent(db.queue)
        } catch { XCTFail("\(error)") }
        await db.drop()
    }

    func testDatabaseNewerThanTheCodeIsRefused() async throws {
        let db = try await TestDatabase.make()
        try await db.execute("INSERT INTO atelier_schema_migrations (version, name, checksum) VALUES (\(Schema.version + 1), 'future', 'x')")
        let migrator = try Migrator(queue: db.queue, migrations: Migration.load(from: TestDatabase.migrationsDirectory))
        do {
            try await migrator.migrate()
            XCTFail("migrate must refuse a database newer than the code")
        } catch {
            XCTAssertTrue(DatabaseErrorText.describe(error).contains("newer than this build"), DatabaseErrorText.describe(error))
        }
        do {
            try await Migrator.requireCurrent(db.queue)
            XCTFail("workers must refuse to start on a newer schema")
        } catch {
            XCTAssertEqual(DatabaseErrorText.queueError(error), .schema(DatabaseErrorText.describe(error)))
        }
        await db.drop()
    }

    func testMigrationsDirectoryMatchesTheBuild() throws {
        let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        XCTAssertEqual(migrations.last?.version, Schema.version, "raise Schema.version with every new migration")
        XCTAssertEqual(migrations.map(\.version), Array(1...Schema.version))
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
