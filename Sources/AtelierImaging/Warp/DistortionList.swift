import Foundation

/// A `warp` field that cannot be used, naming the part that is wrong (`warp[1].scale`).
public struct DistortionListError: Error, Sendable, Equatable {
    public var field: String
    public var message: String
}

extension Distortion {
    /// At most this many distortions per image.
    public static let maxCount = 32

    /// Reads the stylize job's `warp` field — decoded JSON, a list of
    /// `{"type": "bump"|"pinch", "x", "y", "radius", "scale"}` — checking every value.
    public static func list(fromJSON value: Any) throws(DistortionListError) -> [Distortion] {
        guard let items = value as? [Any] else {
            throw DistortionListError(field: "warp", message: "warp must be a list of {type, x, y, radius, scale}")
        }
        guard items.count <= maxCount else {
            throw DistortionListError(field: "warp", message: "warp takes at most \(maxCount) distortions, got \(items.count)")
        }
        return try items.enumerated().map { (index, item) throws(DistortionListError) -> Distortion in
            let prefix = "warp[\(index)]"
            guard let object = item as? [String: Any] else {
                throw DistortionListError(field: prefix, message: "\(prefix) must be an object {type, x, y, radius, scale}")
            }
            guard let name = object["type"] as? String, let kind = Kind(rawValue: name) else {
                throw DistortionListError(field: "\(prefix).type", message: "\(prefix).type must be bump or pinch")
            }
            func number(_ key: String, in range: ClosedRange<Double>) throws(DistortionListError) -> Double {
                guard let raw = object[key] as? NSNumber,
                      raw.doubleValue.isFinite, range.contains(raw.doubleValue) else {
                    throw DistortionListError(field: "\(prefix).\(key)",
                                              message: "\(prefix).\(key) must be a number within \(range.lowerBound)…\(range.upperBound)")
                }
                return raw.doubleValue
            }
            let side = 100_000.0
            return Distortion(kind, x: try number("x", in: -side...side), y: try number("y", in: -side...side),
                              radius: try number("radius", in: 1...side), scale: try number("scale", in: kind.scaleRange))
        }
    }
}
