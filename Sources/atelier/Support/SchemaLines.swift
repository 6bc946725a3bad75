import AtelierAppsSchema
import AtelierDatabase
import AtelierQueue

/// The migration lines this executable migrates and checks at start: the queue's, then the apps'.
enum SchemaLines {
    static let all: [MigrationLine] = [QueueSchema.line, AppsSchema.line]
}
