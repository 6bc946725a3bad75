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
        let environment = ProcessInfo.processInfo.environment
        guard let python = environment["ATELIER_TEST_BROWSER_PYTHON"], let chromium = environment["ATELIER_TEST_CHROMIUM"],
              let driver = environment["ATELIER_TEST_CHROMEDRIVER"] else {
            throw XCTSkip("no browser: ./ops/test installs Chromium, chromedriver and Selenium (ATELIER_TEST_BROWSER_PYTHON, ATELIER_TEST_CHROMIUM, ATELIER_TEST_CHROMEDRIVER)")
        }
        let password = "a password long enough"
        try await makeUser(email: "ops@example.com", password: password, role: "admin")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/live_list.py")
        let browser = environment.merging(["ATELIER_TEST_CHROMIUM": chromium, "ATELIER_TEST_CHROMEDRIVER": driver]) { _, new in new }

        try await queue.pause(queue: "default", actor: "test")
        try await run(python, script, [baseURL, "ops@example.com", password, token, "10", "queued"], environment: browser,
                      expecting: "10 of 10 rows came live")
        try await queue.resume(queue: "default", actor: "test")
        try await run(python, script, [baseURL, "ops@example.com", password, token, "10", "succeeded"], environment: browser,
                      expecting: "10 of 10 rows came live")
    }

    private func run(_ python: String, _ script: URL, _ arguments: [String], environment: [String: String],
                     expecting summary: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path] + arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Read on another thread while the browser works (the pipe must not fill up).
        let text = await Task.detached { String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }.value
        await Task.detached { process.waitUntilExit() }.value
        print(text)
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains(summary), text)
    }
}
