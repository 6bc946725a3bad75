import AtelierDatabase
import AtelierQueue
import AtelierTestSupport
import XCTest

/// Functions and views defined once (``Definition``): applied after the migrations when their text
/// changed, all or none, in any order; `work` and `serve` wait for the build's definitions.
final class DefinitionTests: XCTestCase {
    private static func answer(_ value: Int) -> Definition {
        Definition(name: "atelier_test_answer", sql: """
            -- A function for this test only.
            CREATE OR REPLACE FUNCTION atelier_test_answer() RETURNS integer LANGUAGE sql AS $$ SELECT \(value) $$;
            """)
    }

    /// Every line, the queue's with `definitions` instead of its own.
    private func lines(_ definitions: [Definition]) throws -> [MigrationLine] {
        [try MigrationLine(name: "queue", migrations: QueueSchema.line.migrations, definitions: definitions)]
            + TestDatabase.allLines.filter { $0.name != "queue" }
    }

    private func migrate(_ db: TestDatabase, _ definitions: [Definition]) async throws -> Migrator.Report {
        try await Migrator(database: db.queue.database, lines: lines(definitions)).migrate()
    }

    func testTheQueuesDefinitionsAreRecordedAndAppliedOnlyOnce() async throws {
        let db = try await TestDatabase.make()
        do {
            let recorded = try await db.scalar(
                "SELECT string_agg(name || '=' || checksum, ',' ORDER BY name) FROM atelier_schema_definitions", as: String.self)
            XCTAssertEqual(recorded, QueueSchema.definitions.sorted { $0.name < $1.name }
                .map { "\($0.name)=\($0.checksum)" }.joined(separator: ","))
            let again = try await migrate(db, QueueSchema.definitions)
            XCTAssertEqual(again.definitionsApplied, [], "nothing changed, so nothing is applied again")
        } catch { XCTFail("\(error)") }
        await db.drop()
    }

    func testAChangedDefinitionIsAppliedAgainAndTheWorkersWaitForIt() async throws {
        let db = try await TestDatabase.make()
        do {
            let first = try await migrate(db, QueueSchema.definitions + [Self.answer(1)])
            XCTAssertEqual(first.definitionsApplied, ["atelier_test_answer"])
            let one = try await db.scalar("SELECT atelier_test_answer()", as: Int.self)
            XCTAssertEqual(one, 1)

            let changed = QueueSchema.definitions + [Self.answer(2)]
            do {
                try await Migrator.requireCurrent(database: db.queue.database, lines: lines(changed))
                XCTFail("a build whose definition differs from the database's must not start")
            } catch {
                let message = DatabaseErrorText.describe(error)
                XCTAssertTrue(message.contains("atelier_test_answer") && message.contains("atelier migrate"), message)
            }
            let second = try await migrate(db, changed)
            XCTAssertEqual(second.applied, [], "no migration is pending")
            XCTAssertEqual(second.definitionsApplied, ["atelier_test_answer"], "only the changed definition is applied")
            let two = try await db.scalar("SELECT atelier_test_answer()", as: Int.self)
            XCTAssertEqual(two, 2)
            try await Migrator.requireCurrent(database: db.queue.database, lines: lines(changed))
        } catch { XCTFail("\(error)") }
        await db.drop()
    }

    func testDefinitionsApplyAllOrNone() async throws {
        let db = try await TestDatabase.make()
        do {
            _ = try await migrate(db, QueueSchema.definitions + [Self.answer(1)])
            let broken = Definition(name: "atelier_test_broken", sql: "CREATE OR REPLACE FUNCTION atelier_test_broken( RETURNS;")
            do {
                _ = try await migrate(db, QueueSchema.definitions + [Self.answer(3), broken])
                XCTFail("a definition that does not parse must fail the migration")
            } catch {}
            let value = try await db.scalar("SELECT atelier_test_answer()", as: Int.self)
            XCTAssertEqual(value, 1, "the changed definition beside the broken one is rolled back with it")
            let recorded = try await db.scalar(
                "SELECT checksum FROM atelier_schema_definitions WHERE name = 'atelier_test_answer'", as: String.self)
            XCTAssertEqual(recorded, Self.answer(1).checksum)
        } catch { XCTFail("\(error)") }
        await db.drop()
    }

    func testDefinitionsThatCallOneAnotherApplyInAnyOrder() async throws {
        let db = try await TestDatabase.make()
        do {
            // A SQL-language body is checked against the catalog when it is created, unless
            // check_function_bodies is off: the caller comes first here, its callee after it.
            let caller = Definition(name: "atelier_test_caller", sql: """
                CREATE OR REPLACE FUNCTION atelier_test_caller() RETURNS integer LANGUAGE sql AS $$ SELECT atelier_test_callee() + 1 $$;
                """)
            let callee = Definition(name: "atelier_test_callee", sql: """
                CREATE OR REPLACE FUNCTION atelier_test_callee() RETURNS integer LANGUAGE sql AS $$ SELECT 41 $$;
                """)
            let report = try await migrate(db, QueueSchema.definitions + [caller, callee])
            XCTAssertEqual(report.definitionsApplied, ["atelier_test_caller", "atelier_test_callee"])
            let value = try await db.scalar("SELECT atelier_test_caller()", as: Int.self)
            XCTAssertEqual(value, 42)
        } catch { XCTFail("\(error)") }
        await db.drop()
    }

    func testTheLiveWorkersViewReadsTheLocksOfTheWorkersNamespace() throws {
        // The view names the namespace as a number; the workers take their lock with the constant.
        let view = try XCTUnwrap(QueueSchema.definitions.first { $0.name == "atelier_live_workers" })
        XCTAssertTrue(view.sql.contains("l.classid = \(UInt32(bitPattern: Schema.lockNamespace))::oid"), view.sql)
    }

    func testDefinitionsAreTheSQLFilesDirectlyInTheirFolder() {
        let files = [("SQL/b.sql", "B"), ("SQL/a.sql", "A"), ("SQL/Statements/c.sql", "C"), ("SQL/notes.md", "N"),
                     ("Other/d.sql", "D")]
        XCTAssertEqual(Definition.from(files: files, under: "SQL"), [Definition(name: "a", sql: "A"), Definition(name: "b", sql: "B")])
    }
}
