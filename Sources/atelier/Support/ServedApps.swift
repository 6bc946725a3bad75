import AtelierAPI
import AtelierApps
import AtelierConsole

/// What `atelier serve` and `atelier dev` serve beside the core API: the apps' facades and the
/// operator console.
enum ServedApps {
    static let all: [any APIApp] = Apps.all + [ConsoleApp()]
}
