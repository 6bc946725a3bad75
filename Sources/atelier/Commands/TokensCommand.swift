import ArgumentParser
import AtelierAPI
import AtelierQueue
import Foundation

struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "App tokens for the API: create (shown once), list, revoke. Only hashes are stored.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token and print it once.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "A name for the token (unique among live tokens).") var name: String
        @Option(help: "Owner of the jobs created with it (default: the name). Tokens with one owner see the same jobs.")
        var owner: String?
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let (name, owner, json) = (self.name, self.owner, self.json)
            try await withQueue(database) { queue in
                let created = try await AppTokens(database: queue.database).create(name: name, owner: owner)
                if json {
                    JSONOutput.print(TokensCommand.object(created.token).merging(["token": created.secret]) { $1 })
                } else {
                    say(created.secret)
                    FileHandle.standardError.write(Data("""
                        Token '\(created.token.name)' (owner '\(created.token.owner)', id \(created.token.id.uuidString.lowercased())).
                        Store it now: it is not shown again. Send it as X-App-Token or Authorization: Bearer.

                        """.utf8))
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tokens, newest first (never their values).")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Include revoked tokens.") var all = false
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let (all, json) = (self.all, self.json)
            try await withQueue(database) { queue in
                let tokens = try await AppTokens(database: queue.database).list(includeRevoked: all)
                if json {
                    JSONOutput.print(["tokens": tokens.map(TokensCommand.object)])
                    return
                }
                var table = Table("ID", "NAME", "OWNER", "PREFIX", "CREATED", "LAST USED", "REVOKED")
                for token in tokens {
                    table.add(token.id.uuidString.lowercased(), token.name, token.owner, token.prefix + "…",
                              TokensCommand.time(token.createdAt), token.lastUsedAt.map(TokensCommand.time) ?? "never",
                              token.revokedAt.map(TokensCommand.time) ?? "-")
                }
                say(table.render())
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a live token by id or name; API processes drop it at once.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Token id or name.") var token: String
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let (token, json) = (self.token, self.json)
            try await withQueue(database) { queue in
                let revoked = try await AppTokens(database: queue.database).revoke(token)
                if json { JSONOutput.print(TokensCommand.object(revoked)) } else { say("revoked \(revoked.name) (\(revoked.id.uuidString.lowercased()))") }
            }
        }
    }

    static func object(_ token: AppToken) -> [String: Any] {
        ["id": token.id.uuidString.lowercased(), "name": token.name, "owner": token.owner, "prefix": token.prefix,
         "created_at": JSONOutput.time(token.createdAt), "last_used_at": JSONOutput.time(token.lastUsedAt),
         "revoked_at": JSONOutput.time(token.revokedAt)]
    }

    static func time(_ date: Date) -> String {
        DurationText.format(seconds: Date().timeIntervalSince(date)) + " ago"
    }
}
