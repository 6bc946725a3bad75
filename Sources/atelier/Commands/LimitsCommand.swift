import ArgumentParser
import AtelierAPI
import AtelierQueue
import Foundation

/// `atelier limits`: limits per job kind, global across all workers, in force at every worker's
/// next claim (`atelier_claim`). The same as `GET|PUT /v1/admin/limits` and the console's Queues page.
struct LimitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limits", abstract: "Limits per job kind across all workers: concurrency, per owner, rate, timeout.",
        subcommands: [List.self, SetLimits.self, Clear.self], defaultSubcommand: List.self)

    struct SetLimits: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set some of a kind's limits; those not named are kept (`none` removes one).",
            discussion: """
                Examples: `atelier limits set stylize --concurrency 4 --rate 50/s`;
                `atelier limits set caption --per-owner-concurrency 2 --timeout 90s`;
                `atelier limits set caption --rate none`. A job held back by a limit stays queued
                and spends no attempt.
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Job kind (one this build's workers run).") var kind: String
        @Option(help: "Jobs of the kind running at once, all workers together (or none).") var concurrency: String?
        @Option(help: "Of those, jobs of one owner (or none).") var perOwnerConcurrency: String?
        @Option(help: "Job starts per period, N/PERIOD: 50/s, 600/m, 5/10s (or none). Bursts of at most N.") var rate: String?
        @Option(help: "One attempt's limit in place of the handler's: 30s, 5m (or none).") var timeout: String?
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let change: KindLimitsChange
            do { change = try makeChange() } catch { throw fail(error) }
            let json = self.json
            try await withQueue(database) { queue in
                let saved = try await queue.limits.set(change, actor: OperatorIdentity.cli)
                if json {
                    LimitsCommand.printJSON(saved.map(KindLimitsView.init) ?? KindLimitsView(kind: change.kind))
                } else if let saved {
                    say("\(saved.kind): \(saved.summary)")
                } else {
                    say("\(change.kind): no limit")
                }
            }
        }

        private func makeChange() throws -> KindLimitsChange {
            let catalog = try BuiltInKinds.catalog(settings: Settings())
            guard catalog[kind] != nil else {
                throw QueueError.invalidArgument("unknown kind '\(kind.prefix(64))'; one of: \(catalog.names.joined(separator: ", "))")
            }
            guard concurrency != nil || perOwnerConcurrency != nil || rate != nil || timeout != nil else {
                throw QueueError.invalidArgument("name a limit to set: --concurrency, --per-owner-concurrency, --rate or --timeout")
            }
            func field<T>(_ text: String?, _ parse: (String) throws -> T) throws -> KindLimitsChange.Field<T> {
                guard let text else { return .keep }
                if text.lowercased() == "none" { return .remove }
                return .set(try parse(text))
            }
            func count(_ name: String) -> (String) throws -> Int {
                { text in
                    guard let value = Int(text) else { throw QueueError.invalidArgument("--\(name) must be a whole number or none") }
                    return value
                }
            }
            return KindLimitsChange(
                kind: kind,
                concurrency: try field(concurrency, count("concurrency")),
                ownerConcurrency: try field(perOwnerConcurrency, count("per-owner-concurrency")),
                rate: try field(rate) { try RateLimit(parsing: $0) },
                timeout: try field(timeout) { try DurationText.parse($0) })
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every kind's limits.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON for scripts (what GET /v1/admin/limits answers).") var json = false

        func run() async throws {
            let json = self.json
            try await withQueue(database) { queue in
                let limits = try await queue.limits.list()
                if json {
                    LimitsCommand.printJSON(limits.map(KindLimitsView.init))
                    return
                }
                if limits.isEmpty {
                    say("no limits (set one with `atelier limits set KIND --concurrency N`)")
                    return
                }
                var table = Table("KIND", "CONCURRENCY", "PER OWNER", "RATE", "TIMEOUT", "SET BY")
                for l in limits {
                    table.add(l.kind, l.concurrency.map(String.init) ?? "-", l.ownerConcurrency.map(String.init) ?? "-",
                              l.rate?.description ?? "-", l.timeoutText ?? "-",
                              l.updatedBy)
                }
                say(table.render())
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every limit of a kind.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Job kind.") var kind: String

        func run() async throws {
            let kind = self.kind
            try await withQueue(database) { queue in
                let removed = try await queue.limits.clear(kind: kind, actor: OperatorIdentity.cli)
                say(removed ? "cleared the limits of \(kind)" : "\(kind) had no limit")
            }
        }
    }

    static func printJSON(_ value: some Encodable) {
        guard let data = try? APIJSON.encode(value), let object = try? JSONSerialization.jsonObject(with: data) else { return }
        JSONOutput.print(object)
    }
}
