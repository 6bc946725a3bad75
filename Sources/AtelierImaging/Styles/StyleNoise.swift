import Foundation

/// Deterministic value noise for the styles' paper, pigment and pencil textures: a hash of the
/// lattice corners (no random state, so the same photo always gives the same picture),
/// smoothstep-interpolated. With periods the lattice wraps, so a tile made from it repeats
/// without a seam.
package enum StyleNoise {
    /// Noise in 0…1 at (x, y) in lattice units; the lattice wraps every `periodX` × `periodY`
    /// cells (0: never), and `seed` picks an independent field.
    package static func value(_ x: Float, _ y: Float, periodX: Int = 0, periodY: Int = 0, seed: UInt32 = 0) -> Float {
        let (xi, yi) = (Int(x.rounded(.down)), Int(y.rounded(.down)))
        let (fx, fy) = (x - Float(xi), y - Float(yi))
        let (sx, sy) = (fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy))
        func corner(_ i: Int, _ j: Int) -> Float {
            let wi = periodX > 0 ? ((i % periodX) + periodX) % periodX : i
            let wj = periodY > 0 ? ((j % periodY) + periodY) % periodY : j
            return hash(wi, wj, seed)
        }
        let top = corner(xi, yi) + (corner(xi + 1, yi) - corner(xi, yi)) * sx
        let bottom = corner(xi, yi + 1) + (corner(xi + 1, yi + 1) - corner(xi, yi + 1)) * sx
        return top + (bottom - top) * sy
    }

    /// A hash of a lattice point to 0…1.
    static func hash(_ i: Int, _ j: Int, _ seed: UInt32) -> Float {
        var h = UInt32(truncatingIfNeeded: i &* 374_761_393 &+ j &* 668_265_263) ^ (seed &* 2_246_822_519)
        h = (h ^ (h >> 13)) &* 1_274_126_177
        return Float(h ^ (h >> 16)) / Float(UInt32.max)
    }

    /// A `size` × `size` tile of `sample(x, y)` (x, y in tile pixels), made once per style.
    static func tile(size: Int, _ sample: (Float, Float) -> Float) -> [Float] {
        (0..<(size * size)).map { sample(Float($0 % size), Float($0 / size)) }
    }
}
