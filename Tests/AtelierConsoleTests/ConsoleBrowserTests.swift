import AtelierQueue
import Foundation
import XCTest

/// The console in a real browser (Tests/AtelierConsoleTests/Browser/console_flow.py): Selenium
/// drives Debian's Chromium headless against this test's server — a non-admin refused, an admin
/// signing in, a job appearing live in the open list, opened, cancelled, a forged CSRF token
/// refused, a cron schedule's next run on the Queues page, a kind's limits set and cleared there. Skipped without a browser
/// (``runBrowserScript(_:_:)``).
final class ConsoleBrowserTests: ConsoleTestCase {
    // No worker: the job stays queued until the operator cancels it.
    override var runsWorker: Bool { false }

    func testAnOperatorWatchesAndCancelsAJobInTheBrowser() async throws {
        let password = "a password long enough"
        try await makeUser(email: "ops@example.com", password: password, role: "admin")
        try await makeUser(email: "driver@example.com", password: password, role: "driver")
        try await db.queue.schedules.add(NewSchedule(name: "nightly", cron: "30 2 * * *", kind: "noop"), actor: "test")
        let (status, text) = try await runBrowserScript("console_flow.py", [baseURL, "ops@example.com", "driver@example.com", password, token])
        XCTAssertEqual(status, 0, text)
        for step in ["a user without the admin role is refused", "appears in the open job list, live",
                     "cancelled after the confirmation", "forged CSRF token is refused", "shows a schedule with its next run",
                     "limits are set from the Queues page, shown, and cleared"] {
            XCTAssertTrue(text.contains(step), "step missing: \(step)\n\(text)")
        }
    }
}
