import Foundation

/// Who an operator command acts as, for the audit log: `cli:<login>@<host>`.
enum OperatorIdentity {
    static var cli: String {
        let login = ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.environment["LOGNAME"] ?? "unknown"
        return "cli:\(login)@\(ProcessInfo.processInfo.hostName)"
    }
}
