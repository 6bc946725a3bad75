import AtelierDatabase
import Foundation
import XCTest

/// A real `atelier` process (the binary `./ops/test` built), for tests that need separate
/// processes: several workers at once, SIGKILL, SIGTERM, the supervisor, CLI exit codes.
public final class AtelierProcess: @unchecked Sendable {
    let process = Process()
    let outputURL: URL

    public static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["ATELIER_BIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        // swift test's products sit next to the executable: .build/<config>/atelier
        let bundle = Bundle.main.bundleURL
        for dir in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent("atelier")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: ".build/debug/atelier")
    }

    /// `input`: what the process reads on its standard input (nothing when nil).
    public init(_ arguments: [String], database: DatabaseURL?, environment extra: [String: String] = [:], input: String? = nil) throws {
        outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-test-\(UUID().uuidString).log")
        try Data().write(to: outputURL)
        let output = try FileHandle(forWritingTo: outputURL)
        process.executableURL = Self.binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ATELIER_DATABASE_URL"] = database?.text
        if database == nil { environment.removeValue(forKey: "ATELIER_DATABASE_URL") }
        environment["ATELIER_LOG_LEVEL"] = environment["ATELIER_TEST_LOG_LEVEL"] ?? "info"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
    }

    /// Starts `atelier work` against `database`.
    public static func worker(_ database: TestDatabase, arguments: [String] = [], environment: [String: String] = [:]) throws -> AtelierProcess {
        try AtelierProcess(["work"] + arguments, database: database.url, environment: environment)
    }

    /// Runs a CLI command to its end; returns exit status and output.
    public static func run(_ arguments: [String], database: DatabaseURL?, environment: [String: String] = [:],
                           input: String? = nil) async throws -> (status: Int32, output: String) {
        let process = try AtelierProcess(arguments, database: database, environment: environment, input: input)
        let status = try await process.waitForExit(timeout: .seconds(60))
        return (status, process.output)
    }

    public var pid: Int32 { process.processIdentifier }
    public var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// The output from the first sign of a crash (the fatal error's message and the crashing
    /// thread come first in Swift's crash report), else its last lines.
    public var crashReport: String {
        let text = output
        for marker in ["Fatal error", "💣", "Program crashed", "Assertion failed", "Precondition failed"] {
            if let start = text.range(of: marker)?.lowerBound {
                return String(text[start...].prefix(6000))
            }
        }
        return String(text.suffix(3000))
    }

    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit; returns its exit status (or 128+signal).
    public func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                XCTFail("atelier \(process.arguments ?? []) did not exit within \(timeout); output:\n\(output.suffix(3000))")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outputURL)
    }
}
