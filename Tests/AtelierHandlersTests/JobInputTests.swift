import AtelierAPITestSupport
@testable import AtelierHandlers
import AtelierWorker
import Foundation
import XCTest

/// `JobInput`, through which every image handler reads the upload its payload names: what it
/// throws decides whether the job is retried, so a key that can never be valid and an image that
/// is gone are permanent failures whose message (the job's error, shown to its client) says which.
final class JobInputTests: APITestCase {
    override var runsWorker: Bool { false }

    func testTheInputIsReadFromTheBlobStore() async throws {
        let key = "jobs/\(UUID().uuidString.lowercased())/input.png"
        let file = blobRoot.appendingPathComponent("blobs/\(key)")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: file)
        let bytes = try await JobInput.read(key, from: blobs)
        XCTAssertEqual(bytes, [1, 2, 3])
    }

    func testAnImageThatIsGoneIsAPermanentFailure() async throws {
        let failure = await Self.failure { try await JobInput.read("jobs/\(UUID().uuidString.lowercased())/input.png", from: self.blobs) }
        XCTAssertEqual(failure, .permanent("the input image is gone"), "retrying cannot bring it back")
    }

    func testAnInvalidKeyIsAPermanentFailure() async throws {
        for key in ["", "../etc/passwd", "jobs/.hidden/input.png", "jobs/a b/input.png"] {
            let failure = await Self.failure { try await JobInput.read(key, from: self.blobs) }
            XCTAssertEqual(failure, .permanent("the input blob key is not valid"), key)
        }
    }

    /// The `JobFailure` `body` threw (nil, and a test failure, for anything else).
    private static func failure(_ body: () async throws -> [UInt8]) async -> JobFailure? {
        do {
            _ = try await body()
            XCTFail("expected a failure")
        } catch let failure as JobFailure {
            return failure
        } catch {
            XCTFail("expected a JobFailure, got \(error)")
        }
        return nil
    }
}
