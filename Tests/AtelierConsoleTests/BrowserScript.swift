import Foundation
import XCTest

extension ConsoleTestCase {
    /// Runs `Browser/<name>` (Selenium driving Debian's Chromium headless) with `arguments`; its
    /// exit status and everything it printed. `./ops/test` installs Chromium, chromedriver and
    /// Selenium and says where they are (ATELIER_TEST_BROWSER_PYTHON, ATELIER_TEST_CHROMIUM,
    /// ATELIER_TEST_CHROMEDRIVER); without them the test is skipped, saying so.
    func runBrowserScript(_ name: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let python = environment["ATELIER_TEST_BROWSER_PYTHON"], let chromium = environment["ATELIER_TEST_CHROMIUM"],
              let driver = environment["ATELIER_TEST_CHROMEDRIVER"] else {
            throw XCTSkip("no browser: ./ops/test installs Chromium, chromedriver and Selenium (ATELIER_TEST_BROWSER_PYTHON, ATELIER_TEST_CHROMIUM, ATELIER_TEST_CHROMEDRIVER)")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/\(name)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path] + arguments
        process.environment = environment.merging(["ATELIER_TEST_CHROMIUM": chromium, "ATELIER_TEST_CHROMEDRIVER": driver]) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Read on another thread while the browser works (the pipe must not fill up).
        let text = await Task.detached { String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }.value
        await Task.detached { process.waitUntilExit() }.value
        return (process.terminationStatus, text)
    }
}
