/// FNV-1a, 64-bit (Fowler–Noll–Vo): a small hash that gives the same value in every process and
/// on every machine, unlike Swift's `Hasher`, which is seeded per process. For checksums, ETags
/// and deterministic seeds; not for anything an attacker may choose to collide.
///
/// Migration checksums stored in databases are this hash of the files: it must never change.
package struct FNV1a: Sendable {
    @usableFromInline static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    @usableFromInline static let prime: UInt64 = 0x0000_0100_0000_01b3

    @usableFromInline var state = FNV1a.offsetBasis

    package init() {}

    /// The hash of every byte combined so far.
    package var value: UInt64 { state }

    /// Adds `bytes`, in order, to the hash.
    @inlinable package mutating func combine(_ bytes: some Sequence<UInt8>) {
        var hash = state
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* Self.prime }
        state = hash
    }

    /// The hash of `bytes`.
    @inlinable package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hasher = FNV1a()
        hasher.combine(bytes)
        return hasher.value
    }
}
