import Foundation

/// The one spelling of an email address that sign-in compares and counts: without the spaces,
/// tabs and line breaks around it, in Unicode NFC, lowercased. The store looks a user up by it
/// and the sign-in limits count tries per it, so `" a@x.com"`, `"\tA@X.com"` and a decomposed
/// `é` are one address to both — not ten fresh tries each.
package enum EmailKey {
    /// Trimmed and NFC, case kept: how an address is stored and shown.
    package static func trimmed(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }

    /// ``trimmed(_:)``, lowercased: what sign-in compares and counts.
    package static func key(_ email: String) -> String {
        trimmed(email).lowercased()
    }
}
