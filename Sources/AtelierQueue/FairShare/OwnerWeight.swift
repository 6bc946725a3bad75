import Foundation

/// An owner's weight in fair share: while owners have jobs queued at one
/// priority, an owner of weight 2 is served two jobs for each one of an owner of weight 1. Owners
/// without a weight weigh 1. Set with `atelier weights set OWNER W`.
package struct OwnerWeight: Sendable, Equatable {
    package var owner: String
    package var weight: Double
    package var updatedAt: Date
    package var updatedBy: String

    package static let range: ClosedRange<Double> = 0.01...100
}
