import Foundation
import PostgresNIO

/// A parsed `postgres://user:pass@host:port/db?sslmode=…` URL (`ATELIER_DATABASE_URL`).
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    /// `disable` (default for loopback hosts), `prefer`, or `require`.
    public var sslMode: String

    public init(host: String, port: Int = 5432, username: String, password: String?, database: String, sslMode: String = "disable") {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
    }

    public init(parsing text: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme),
              let host = components.host, !host.isEmpty
        else {
            throw ConfigurationError("ATELIER_DATABASE_URL must look like postgres://user:password@host:5432/database, got '\(Self.redacted(text))'")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw ConfigurationError("ATELIER_DATABASE_URL names no database: add /DATABASE after the host")
        }
        let sslMode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw ConfigurationError("ATELIER_DATABASE_URL sslmode must be disable, prefer or require, got '\(sslMode)'")
        }
        self.init(
            host: host,
            port: components.port ?? 5432,
            username: components.user?.removingPercentEncoding ?? "postgres",
            password: components.password?.removingPercentEncoding,
            database: database.removingPercentEncoding ?? database,
            sslMode: sslMode
        )
    }

    /// The same server, another database (tests create one database per test).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }

    public var text: String {
        var userInfo = username.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? username
        if let password {
            userInfo += ":" + (password.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? password)
        }
        return "postgres://\(userInfo)@\(host):\(port)/\(database)?sslmode=\(sslMode)"
    }

    package func clientConfiguration(applicationName: String) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "require": tls = .require(.makeClientConfiguration())
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .disable
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        configuration.options.connectTimeout = .seconds(5)
        // No `SELECT 1` keep-alive on idle pooled connections: TCP keepalive finds a dead one
        // (``DeadConnectionDetector``), and the pool's own does harm. While it runs, the
        // connection counts as soon available, so a statement made then waits for it instead of
        // opening another; if the keep-alive went into a dead network, the connection ends with
        // an error and that statement is left waiting for good (PostgresNIO 1.33; a worker then
        // never claims again and does not stop when told: `SilencedDatabaseTests`).
        configuration.options.keepAliveBehavior = nil
        configuration.options.minimumConnections = 1
        return configuration
    }

    package func connectionConfiguration() -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "require": tls = .require(try! .init(configuration: .makeClientConfiguration()))
        case "prefer": tls = .prefer(try! .init(configuration: .makeClientConfiguration()))
        default: tls = .disable
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    private static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let colon = text[..<at].lastIndex(of: ":"),
              text[..<colon].contains("//") && !text[text.index(after: colon)..<at].contains("/")
        else { return text }
        return text[...colon] + "***" + text[at...]
    }
}
