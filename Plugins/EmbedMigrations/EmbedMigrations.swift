import Foundation
import PackagePlugin

/// Builds `Migrations/*.sql` into the target that uses it (AtelierDatabase) as Swift source: the
/// binary carries its schema and never looks for it on disk. The files are read by the
/// `EmbedFiles` tool at build time; a changed or added file rebuilds the target.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Migrations")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [.buildCommand(
            displayName: "Embedding \(files.count) migrations into \(target.name)",
            executable: try context.tool(named: "EmbedFiles").url,
            arguments: [output.path, "list", "Migration.files"] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output]
        )]
    }
}
