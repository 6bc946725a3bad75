import ArgumentParser
import AtelierAPI
import Foundation

/// `atelier openapi`: the OpenAPI document this build serves at `/openapi.yaml`, for the kinds
/// it accepts (the diagnostic ones only with `ATELIER_DIAGNOSTIC_KINDS=true`), printed without a
/// server. `Clients/Swift` is generated from it.
struct OpenAPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Print the OpenAPI document this build serves (no database, no server).")

    @Option(name: .customLong("base-url"), help: "The server URL written into the document.")
    var baseURL = "http://localhost:5005"

    func run() async throws {
        let document = OpenAPIDocument.rendered(kinds: try BuiltInKinds.catalog(settings: Settings()), baseURL: baseURL)
        FileHandle.standardOutput.write(Data(document.utf8))
    }
}
