import AtelierDatabase
import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// The queue's line is the checkout's files: its migrations those of `Sources/AtelierQueue/Migrations`,
/// its functions and views those of `Sources/AtelierQueue/SQL`, each defining what it is named after.
final class QueueSchemaTests: XCTestCase {
    private static var folder: URL {
        TestDatabase.repositoryRoot.appendingPathComponent("Sources/AtelierQueue/SQL")
    }

    func testTheBuiltInDefinitionsAreTheCheckoutsFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        XCTAssertEqual(QueueSchema.definitions.map { $0.name + ".sql" }, files)
        for definition in QueueSchema.definitions {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(definition.name + ".sql"), encoding: .utf8)
            XCTAssertEqual(definition.sql, text, "\(definition.name) is built in as its file is")
        }
    }

    func testTheBuiltInMigrationsAreTheCheckoutsFiles() throws {
        let onDisk = try Migration.load(from: TestDatabase.repositoryRoot.appendingPathComponent("Sources/AtelierQueue/Migrations"))
        XCTAssertEqual(QueueSchema.line.migrations, onDisk)
        XCTAssertEqual(QueueSchema.line.name, "queue")
        XCTAssertEqual(QueueSchema.line.version, onDisk.count)
    }

    /// One function, procedure or view per file; a trigger function's file also attaches it
    /// (`CREATE OR REPLACE TRIGGER … EXECUTE FUNCTION` itself), and nothing else.
    func testEachFileDefinesWhatItIsNamedAfterAndNothingElse() {
        for definition in QueueSchema.definitions {
            let lines = definition.sql.split(separator: "\n")
            let triggers = lines.filter { $0.hasPrefix("CREATE OR REPLACE TRIGGER ") }
            for (offset, trigger) in triggers.enumerated() {
                let next = lines.firstIndex(of: trigger).map { lines.index(after: $0) }.flatMap { lines.indices.contains($0) ? lines[$0] : nil } ?? ""
                XCTAssertTrue((trigger + next).contains("EXECUTE FUNCTION \(definition.name)()"),
                              "\(definition.name).sql's trigger \(offset + 1) must call \(definition.name)")
            }
            let creates = lines.filter { $0.hasPrefix("CREATE ") && !$0.hasPrefix("CREATE OR REPLACE TRIGGER ") }
            XCTAssertEqual(creates.count, 1, "\(definition.name).sql creates one thing")
            let defines = ["FUNCTION", "PROCEDURE", "VIEW"].contains { kind in
                ["(", " "].contains { creates.first?.hasPrefix("CREATE OR REPLACE \(kind) \(definition.name)\($0)") == true }
            }
            XCTAssertTrue(defines, "\(definition.name).sql must CREATE OR REPLACE \(definition.name): \(creates)")
            XCTAssertTrue(definition.sql.hasPrefix("-- "), "\(definition.name).sql starts with a header saying what it does")
        }
    }
}
