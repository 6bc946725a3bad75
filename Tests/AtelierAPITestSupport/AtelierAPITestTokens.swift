import AtelierAPI
import AtelierQueue

/// App tokens for the other callers a test needs (alice's is made by ``APITestCase``).
package enum AtelierAPITestTokens {
    package static func make(_ queue: JobQueue, name: String, owner: String? = nil) async throws -> String {
        try await AppTokens(database: queue.database).create(name: name, owner: owner).secret
    }
}
