import Foundation

/// Who an operator command acts as, for the audit log: `cli:<login>@<host>`.
enum OperatorIdentity {
    static var cli: String {
        let environment = ProcessInfo.processInfo.environment
        let login = environment["USER"] ?? environment["LOGNAME"] ?? NSUserName()
        return "cli:\(login)@\(ProcessInfo.processInfo.hostName)"
    }
}
