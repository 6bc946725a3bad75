import AtelierHandlers
import AtelierWorker
import Foundation

/// Reads the diagnostic handlers' execution log: one `job_id attempt pid started_unix_ns` line per run.
struct ExecutionLogFile {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-executions-\(UUID().uuidString).log")

    var environment: [String: String] { ["ATELIER_DIAGNOSTIC_LOG": url.path] }

    func entries() -> [ExecutionLog.Entry] {
        ExecutionLog(path: url.path).entries()
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
