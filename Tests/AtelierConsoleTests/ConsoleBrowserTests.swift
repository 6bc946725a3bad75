import Foundation
import XCTest

/// The console in a real browser (Tests/AtelierConsoleTests/Browser/console_flow.py): Selenium
/// drives Debian's Chromium headless against this test's server — a non-admin refused, an admin
/// signing in, a job appearing live in the open list, opened, cancelled, a forged CSRF token
/// refused. `./ops/test` installs Chromium, chromedriver and Selenium and says where they are
/// (ATELIER_TEST_BROWSER_PYTHON, ATELIER_TEST_CHROMIUM, ATELIER_TEST_CHROMEDRIVER); without
/// them the test is skipped, saying so.
final class ConsoleBrowserTests: ConsoleTestCase {
    // No worker: the job stays queued until the operator cancels it.
    override var runsWorker: Bool { false }

    func testAnOperatorWatchesAndCancelsAJobInTheBrowser() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let python = environment["ATELIER_TEST_BROWSER_PYTHON"], let chromium = environment["ATELIER_TEST_CHROMIUM"],
              let driver = environment["ATELIER_TEST_CHROMEDRIVER"] else {
            throw XCTSkip("no browser: ./ops/test installs Chromium, chromedriver and Selenium (ATELIER_TEST_BROWSER_PYTHON, ATELIER_TEST_CHROMIUM, ATELIER_TEST_CHROMEDRIVER)")
        }
        let password = "a password long enough"
        try await makeUser(email: "ops@example.com", password: password, role: "admin")
        try await makeUser(email: "driver@example.com", password: password, role: "driver")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/console_flow.py")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, baseURL, "ops@example.com", "driver@example.com", password, token]
        process.environment = environment.merging(["ATELIER_TEST_CHROMIUM": chromium, "ATELIER_TEST_CHROMEDRIVER": driver]) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Read on another thread while the browser works (the pipe must not fill up).
        let text = await Task.detached { String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }.value
        await Task.detached { process.waitUntilExit() }.value
        XCTAssertEqual(process.terminationStatus, 0, text)
        for step in ["a user without the admin role is refused", "appears in the open job list, live",
                     "cancelled after the confirmation", "forged CSRF token is refused"] {
            XCTAssertTrue(text.contains(step), "step missing: \(step)\n\(text)")
        }
    }
}
