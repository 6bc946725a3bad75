import AtelierEmbeddings
import Foundation

/// The embedding model from ATELIER_MODEL_DIR (./ops/test installs it and sets it), loaded once
/// for every HTTP test that searches or indexes; nil when it is not installed.
package enum TestModel {
    package static let encoder: MiniLMEncoder? = {
        guard let directory = ProcessInfo.processInfo.environment["ATELIER_MODEL_DIR"] else { return nil }
        return try? MiniLMEncoder(modelDirectory: URL(fileURLWithPath: directory))
    }()
}
