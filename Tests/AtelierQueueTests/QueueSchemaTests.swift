import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// The queue's functions and views are the files of `Sources/AtelierQueue/SQL`, each defining
/// what it is named after.
final class QueueSchemaTests: XCTestCase {
    private static var folder: URL {
        TestDatabase.migrationsDirectory.deletingLastPathComponent().appendingPathComponent("Sources/AtelierQueue/SQL")
    }

    func testTheBuiltInDefinitionsAreTheCheckoutsFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        XCTAssertEqual(QueueSchema.definitions.map { $0.name + ".sql" }, files)
        for definition in QueueSchema.definitions {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(definition.name + ".sql"), encoding: .utf8)
            XCTAssertEqual(definition.sql, text, "\(definition.name) is built in as its file is")
        }
    }

    func testEachFileDefinesWhatItIsNamedAfterAndNothingElse() {
        for definition in QueueSchema.definitions {
            let creates = definition.sql.split(separator: "\n").filter { $0.hasPrefix("CREATE ") }
            XCTAssertEqual(creates.count, 1, "\(definition.name).sql creates one thing")
            let defines = ["FUNCTION", "PROCEDURE", "VIEW"].contains { kind in
                ["(", " "].contains { creates.first?.hasPrefix("CREATE OR REPLACE \(kind) \(definition.name)\($0)") == true }
            }
            XCTAssertTrue(defines, "\(definition.name).sql must CREATE OR REPLACE \(definition.name): \(creates)")
            XCTAssertTrue(definition.sql.hasPrefix("-- "), "\(definition.name).sql starts with a header saying what it does")
        }
    }
}
