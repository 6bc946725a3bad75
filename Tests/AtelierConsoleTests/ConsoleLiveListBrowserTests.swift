import Foundation
import XCTest

/// The job list's live rows in a real browser, 20 times over (Tests/AtelierConsoleTests/Browser/live_list.py):
/// an admin opens the list, a `sleep` job is enqueued through the API — half the time before
/// the page's live stream is open, half after — and its row must come. Ten times with the queue
/// paused (the job stays queued and no event tells of it), then ten with the in-process worker
/// running each job at once (the page may first hear of it in any state; the row must end up
/// `succeeded`). Skipped without a browser, like ``ConsoleBrowserTests``.
final class ConsoleLiveListBrowserTests: ConsoleTestCase {
    func testEveryJobEnqueuedWhileTheListIsOpenAppearsLive() async throws {
        try await makeUser(email: "ops@example.com", password: Self.password, role: "admin")
        try await queue.pause(queue: "default", actor: "test")
        try await tenRowsCome(ending: "queued")
        try await queue.resume(queue: "default", actor: "test")
        try await tenRowsCome(ending: "succeeded")
    }

    private static let password = "a password long enough"

    private func tenRowsCome(ending state: String) async throws {
        let (status, text) = try await runBrowserScript("live_list.py", [baseURL, "ops@example.com", Self.password, token, "10", state])
        print(text)
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("10 of 10 rows came live"), text)
    }
}
