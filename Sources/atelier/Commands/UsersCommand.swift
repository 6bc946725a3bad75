import ArgumentParser
import AtelierAccounts
import AtelierQueue
import Foundation

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Users who sign in (the fleet app's email and password; Sign in with Apple): create, list, disable, token.",
        subcommands: [Create.self, List.self, Disable.self, Token.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user. With --password-stdin the first line of standard input is the password (≥ 8 characters).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Email address (unique, whatever its case).") var email: String
        @Option(help: "Role: user, admin, or an app's own (driver, …).") var role = "user"
        @Option(help: "Display name.") var name = ""
        @Option(name: .customLong("permission"), help: "A permission the apps check (repeat for several), e.g. vehicle.read.")
        var permissions: [String] = []
        @Flag(help: "Read the password from standard input (otherwise the user has none and cannot sign in with one).")
        var passwordStdin = false
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            var password: String?
            if passwordStdin {
                guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                    throw ValidationError("--password-stdin: standard input had no password")
                }
                password = line
            }
            let (email, role, name, permissions, json) = (self.email, self.role, self.name, self.permissions, self.json)
            try await withQueue(database) { [password] queue in
                let user = try await UserStore(database: queue.database, logger: queue.logger)
                    .create(email: email, name: name, role: role, permissions: permissions, password: password)
                if json { JSONOutput.print(UsersCommand.object(user)) } else {
                    say("created \(user.email ?? "") (\(user.id.uuidString.lowercased()), role \(user.role)\(user.hasPassword ? "" : ", no password"))")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Users, oldest first (never their passwords).")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let json = self.json
            try await withQueue(database) { queue in
                let users = try await UserStore(database: queue.database, logger: queue.logger).list()
                if json {
                    JSONOutput.print(["users": users.map(UsersCommand.object)])
                    return
                }
                var table = Table("ID", "EMAIL", "NAME", "ROLE", "PERMISSIONS", "SIGN-IN", "CREATED", "DISABLED")
                for user in users {
                    let signIn = [user.hasPassword ? "password" : nil, user.appleSubject != nil ? "apple" : nil].compactMap { $0 }
                    table.add(user.id.uuidString.lowercased(), user.email ?? "-", user.name.isEmpty ? "-" : user.name, user.role,
                              user.permissions.isEmpty ? "-" : user.permissions.joined(separator: ","),
                              signIn.isEmpty ? "-" : signIn.joined(separator: ","), TokensCommand.time(user.createdAt),
                              user.disabledAt.map(TokensCommand.time) ?? "-")
                }
                say(table.render())
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a user: no sign-in or refresh, and API processes refuse the user's access tokens at once.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user's email.") var email: String
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let (email, json) = (self.email, self.json)
            try await withQueue(database) { queue in
                let users = UserStore(database: queue.database, logger: queue.logger)
                let user = try await users.disable(email: email)
                try await RefreshTokens.revokeAll(of: user.id, database: queue.database, logger: queue.logger)
                if json { JSONOutput.print(UsersCommand.object(user)) } else { say("disabled \(user.email ?? "") (\(user.id.uuidString.lowercased()))") }
            }
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print an access token for a user and one app, as its sign-in would issue (needs ATELIER_JWT_SECRET).",
            discussion: """
                For scripts and tests that act as a user of an app whose sign-in they cannot play (a
                Learn user signs in with Apple): the token is the app's (`aud`), starts a session,
                and expires after ATELIER_ACCESS_TOKEN_TTL. Whoever holds the database and the JWT
                secret can do this anyway; keep both as secret as each other.
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user's email.") var email: String
        @Option(help: "The app: fleet, learn or console.") var app: String

        func run() async throws {
            let settings = Settings()
            guard let audience = [AccessAudience.fleet, .learn, .console].first(where: { $0.rawValue == "atelier-" + app }) else {
                throw ValidationError("--app must be fleet, learn or console")
            }
            guard let secret = settings.string("ATELIER_JWT_SECRET") else {
                throw ValidationError("ATELIER_JWT_SECRET is not set: access tokens are signed with it")
            }
            let lifetime = try settings.duration("ATELIER_ACCESS_TOKEN_TTL") ?? .seconds(3600)
            let tokens = try AccessTokens(secret: secret, lifetime: lifetime)
            let email = self.email
            let token = try await withQueue(database) { queue in
                guard let user = try await UserStore(database: queue.database, logger: queue.logger).find(email: email) else {
                    throw AccountError.notFound("no user with the email '\(email)'")
                }
                guard user.disabledAt == nil else { throw AccountError.invalidArgument("'\(email)' is disabled") }
                return try await tokens.issue(for: user, audience: audience).token
            }
            say(token)
        }
    }

    static func object(_ user: User) -> [String: Any] {
        ["id": user.id.uuidString.lowercased(), "email": user.email as Any, "name": user.name, "role": user.role,
         "permissions": user.permissions, "has_password": user.hasPassword, "apple": user.appleSubject != nil,
         "created_at": JSONOutput.time(user.createdAt), "disabled_at": JSONOutput.time(user.disabledAt)]
    }
}
