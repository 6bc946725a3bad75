import ArgumentParser
import Foundation

@main
struct Atelier: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "atelier",
        abstract: "Atelier: a PostgreSQL-backed job system for image work.",
        discussion: """
            Settings come from ATELIER_* environment variables (ATELIER_DATABASE_URL first of all);
            flags override them. Exit codes: 0 ok, 1 failure, 3 no such job, 4 conflict, 64 bad arguments,
            69 database unreachable, 78 configuration or schema problem.
            """,
        version: AtelierVersion.current,
        subcommands: [ServeCommand.self, DevCommand.self, MigrateCommand.self, WorkCommand.self, QueueCommand.self, JobsCommand.self, SchedulesCommand.self, LimitsCommand.self, WeightsCommand.self, WorkersCommand.self, TokensCommand.self, UsersCommand.self, StylesCommand.self, VariantCommand.self, OpenAPICommand.self, AnalyzeCommand.self, BenchCommand.self]
    )

    static func main() async {
        MemoryTuning.apply(environment: ProcessInfo.processInfo.environment)
        await main(nil)
    }
}

enum AtelierVersion {
    static let current = "0.1.0"
}
