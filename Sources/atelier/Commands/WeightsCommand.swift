import ArgumentParser
import AtelierQueue
import Foundation

/// `atelier weights`: owners' weights in fair share (`owner_weights`). An owner of weight 2 is
/// served two jobs for each one of an owner of weight 1 while both have jobs queued.
struct WeightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weights", abstract: "Owners' weights in fair share (default 1).",
        subcommands: [List.self, SetWeight.self, Clear.self], defaultSubcommand: List.self)

    struct SetWeight: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Give an owner (a user `user:<id>` or an app token's owner) a weight, 0.01…100, for jobs tagged from now on.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The owner, as `atelier jobs list` shows it.") var owner: String
        @Argument(help: "Its weight: 2 is served twice as often as 1.") var weight: Double

        func run() async throws {
            let owner = self.owner, weight = self.weight
            try await withQueue(database) { queue in
                try await queue.ownerWeights.set(owner: owner, weight: weight, actor: OperatorIdentity.cli)
                say("\(owner): weight \(weight.formatted(.number.precision(.fractionLength(0...2))))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Owners with a weight other than 1.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let json = self.json
            try await withQueue(database) { queue in
                let weights = try await queue.ownerWeights.list()
                if json {
                    JSONOutput.print(weights.map {
                        ["owner": $0.owner, "weight": $0.weight, "updated_at": JSONOutput.time($0.updatedAt), "updated_by": $0.updatedBy] as [String: Any]
                    })
                    return
                }
                if weights.isEmpty {
                    say("every owner weighs 1 (set one with `atelier weights set OWNER W`)")
                    return
                }
                var table = Table("OWNER", "WEIGHT", "SET BY")
                for w in weights { table.add(w.owner, w.weight.formatted(.number.precision(.fractionLength(0...2))), w.updatedBy) }
                say(table.render())
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an owner the default weight, 1, again.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The owner.") var owner: String

        func run() async throws {
            let owner = self.owner
            try await withQueue(database) { queue in
                let removed = try await queue.ownerWeights.clear(owner: owner, actor: OperatorIdentity.cli)
                say(removed ? "\(owner): weight 1" : "\(owner) already weighs 1")
            }
        }
    }
}
