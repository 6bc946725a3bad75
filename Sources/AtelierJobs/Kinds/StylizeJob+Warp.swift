import AtelierImaging

extension StylizeJob {
    /// One distortion of a stylize job's `warp` list: `{"type": "bump"|"pinch", "x", "y",
    /// "radius", "scale"}` in pixels of the uploaded image as it is seen (after EXIF
    /// orientation), origin top-left (see ``Distortion``). At most ``maxCount`` per image.
    package struct Warp: Codable, Sendable, Equatable {
        package var type: String
        package var x: Double
        package var y: Double
        package var radius: Double
        package var scale: Double

        package init(type: String, x: Double, y: Double, radius: Double, scale: Double) {
            (self.type, self.x, self.y, self.radius, self.scale) = (type, x, y, radius, scale)
        }

        package init(_ distortion: Distortion) {
            self.init(type: distortion.kind.rawValue, x: distortion.x, y: distortion.y, radius: distortion.radius, scale: distortion.scale)
        }

        package static let maxCount = 32
        /// How far from the image a centre may lie, and the largest radius, in pixels.
        static let side = 100_000.0

        /// The `warp` option — a list of distortions — checked, naming the part that is wrong
        /// (`warp`, `warp[1]`, `warp[1].scale`).
        package static func list(_ value: JSONValue) throws(JobOptionsError) -> [Warp] {
            guard let items = value.array else {
                throw JobOptionsError(field: "warp", message: "warp must be a list of {type, x, y, radius, scale}")
            }
            guard items.count <= maxCount else { throw tooMany(items.count) }
            var list: [Warp] = []
            for (index, item) in items.enumerated() {
                let prefix = "warp[\(index)]"
                guard let object = item.object else {
                    throw JobOptionsError(field: prefix, message: "\(prefix) must be an object {type, x, y, radius, scale}")
                }
                let warp = Warp(type: object["type"]?.string ?? "", x: object["x"]?.double ?? .nan, y: object["y"]?.double ?? .nan,
                                radius: object["radius"]?.double ?? .nan, scale: object["scale"]?.double ?? .nan)
                _ = try warp.distortion(index: index)
                list.append(warp)
            }
            return list
        }

        static func tooMany(_ count: Int) -> JobOptionsError {
            JobOptionsError(field: "warp", message: "warp takes at most \(maxCount) distortions, got \(count)")
        }

        /// The distortion this item asks for, every value checked (a missing or non-numeric
        /// value arrives here as NaN and is refused like one out of range).
        package func distortion(index: Int) throws(JobOptionsError) -> Distortion {
            let prefix = "warp[\(index)]"
            guard let kind = Distortion.Kind(rawValue: type) else {
                throw JobOptionsError(field: "\(prefix).type", message: "\(prefix).type must be bump or pinch")
            }
            func number(_ key: String, _ value: Double, in range: ClosedRange<Double>) throws(JobOptionsError) -> Double {
                guard value.isFinite, range.contains(value) else {
                    throw JobOptionsError(field: "\(prefix).\(key)",
                                          message: "\(prefix).\(key) must be a number within \(range.lowerBound)…\(range.upperBound)")
                }
                return value
            }
            let side = Self.side
            return Distortion(kind, x: try number("x", x, in: -side...side), y: try number("y", y, in: -side...side),
                              radius: try number("radius", radius, in: 1...side), scale: try number("scale", scale, in: kind.scaleRange))
        }
    }
}
