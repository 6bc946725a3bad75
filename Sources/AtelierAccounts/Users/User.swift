import Foundation

/// A person who signs in: with email and password (the fleet app), with Apple (the Learn
/// Assistant), or both. Jobs and other owned things of a user belong to ``owner``.
package struct User: Sendable, Equatable {
    package var id: UUID
    package var email: String?
    package var name: String
    /// `user`, `admin`, or an app's own role (`driver`, …): lowercase letters, digits, `_`, `-`, `.`.
    package var role: String
    /// What the user may do, as the apps name it (`vehicle.read`, `trip.create`, …).
    package var permissions: [String]
    /// The Apple account (`sub` of Apple's identity token), when the user signs in with Apple.
    package var appleSubject: String?
    package var hasPassword: Bool
    package var disabledAt: Date?
    package var createdAt: Date

    /// The owner name of the user's jobs, points and documents: never one an app token can have
    /// by accident (token owners are names; this is a prefix and a uuid).
    package var owner: String { Self.ownerPrefix + id.uuidString.lowercased() }
    package static let ownerPrefix = "user:"

    package var isAdmin: Bool { role == "admin" }

    package init(id: UUID, email: String?, name: String, role: String, permissions: [String], appleSubject: String?,
                hasPassword: Bool, disabledAt: Date?, createdAt: Date) {
        (self.id, self.email, self.name, self.role, self.permissions) = (id, email, name, role, permissions)
        (self.appleSubject, self.hasPassword, self.disabledAt, self.createdAt) = (appleSubject, hasPassword, disabledAt, createdAt)
    }
}
