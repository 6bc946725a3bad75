import AtelierAccounts
import AtelierWorker

/// The application's maintenance chores, which the worker runtime runs without knowing the
/// tables they touch (``MaintenanceChore``): every `atelier work` and `atelier dev` worker
/// registers them, and whichever process leads maintenance runs them.
enum AppChores {
    static let all: [MaintenanceChore] = [
        MaintenanceChore(name: "sign-ins") { queue in
            try await SignInPurge(database: queue.database, logger: queue.logger).run()
        },
    ]
}
