import Foundation

/// A person who signs in: with email and password (the fleet app), with Apple (the Learn
/// Assistant), or both. Jobs and other owned things of a user belong to ``owner``.
public struct User: Sendable, Equatable {
    public var id: UUID
    public var email: String?
    public var name: String
    /// `user`, `admin`, or an app's own role (`driver`, …): lowercase letters, digits, `_`, `-`, `.`.
    public var role: String
    /// What the user may do, as the apps name it (`vehicle.read`, `trip.create`, …).
    public var permissions: [String]
    /// The Apple account (`sub` of Apple's identity token), when the user signs in with Apple.
    public var appleSubject: String?
    public var hasPassword: Bool
    public var disabledAt: Date?
    public var createdAt: Date

    /// The owner name of the user's jobs, points and documents: never one an app token can have
    /// by accident (token owners are names; this is a prefix and a uuid).
    public var owner: String { Self.ownerPrefix + id.uuidString.lowercased() }
    public static let ownerPrefix = "user:"

    public var isAdmin: Bool { role == "admin" }

    public init(id: UUID, email: String?, name: String, role: String, permissions: [String], appleSubject: String?,
                hasPassword: Bool, disabledAt: Date?, createdAt: Date) {
        (self.id, self.email, self.name, self.role, self.permissions) = (id, email, name, role, permissions)
        (self.appleSubject, self.hasPassword, self.disabledAt, self.createdAt) = (appleSubject, hasPassword, disabledAt, createdAt)
    }
}
