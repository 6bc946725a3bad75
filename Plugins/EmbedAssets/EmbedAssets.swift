import Foundation
import PackagePlugin

/// Builds the data files of the target that uses it — every `.yaml`, `.js`, `.css` and `.sql` file
/// under its folder — into it as Swift source: `enum EmbeddedAssets`, one `static let` string per file,
/// named after it in lower camel case (`OpenAPI/openapi.yaml` → `EmbeddedAssets.openapiYaml`,
/// `Schedules/schedule_tick.sql` → `EmbeddedAssets.scheduleTickSql`), verbatim, and
/// `EmbeddedAssets.files`, every file's path under the folder with its text. The target lists
/// the same files in its `exclude:` (SwiftPM would otherwise warn that it does not handle them);
/// the `EmbedFiles` tool reads them at build time, so a changed file rebuilds the target.
@main
struct EmbedAssets: BuildToolPlugin {
    static let extensions: Set<String> = ["yaml", "js", "css", "sql"]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let folder = target.directoryURL
        var files: [URL] = []
        if let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) {
            for case let url as URL in walk where Self.extensions.contains(url.pathExtension) { files.append(url) }
        }
        files.sort { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [.buildCommand(
            displayName: "Embedding \(files.count) assets into \(target.name)",
            executable: try context.tool(named: "EmbedFiles").url,
            arguments: [output.path, "each", "EmbeddedAssets", folder.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output]
        )]
    }
}
