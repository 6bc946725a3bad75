import Foundation

/// A local geometric distortion with the parameters of Core Image's `CIBumpDistortion` and
/// `CIPinchDistortion`: a centre, a radius and a scale. Pixels outside the circle are untouched;
/// inside, each output pixel is read from a point on the same ray from the centre (inverse
/// mapping) with bilinear sampling, so the result has no holes.
///
/// Coordinates are pixels of the image as it is seen (after EXIF orientation), origin at the
/// top-left, y down. (Core Image's origin is bottom-left: a client converts with y = height − y.)
package struct Distortion: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        /// Magnifies the disc (scale > 0, up to 1) or dents it (scale < 0, down to −1).
        /// Output at distance d reads from distance d·(1 − s·(1 − d/r))²: at the centre from
        /// d·(1 − s)², nearer the centre when s > 0 — a bulge — and at the rim from d itself.
        case bump
        /// Draws the disc's content towards its centre (scale 0…2; 0 does nothing). Output at
        /// distance d reads from distance d·sin(π·d / 2r)^(−s/2): farther out the nearer the
        /// centre, unchanged at the rim.
        case pinch

        package var scaleRange: ClosedRange<Double> { self == .bump ? -1...1 : 0...2 }
    }

    package var kind: Kind
    package var x: Double
    package var y: Double
    package var radius: Double
    package var scale: Double

    package init(_ kind: Kind, x: Double, y: Double, radius: Double, scale: Double) {
        self.kind = kind
        self.x = x
        self.y = y
        self.radius = radius
        self.scale = scale
    }

    /// How far from the centre the output pixel at distance `d` reads, as a factor of `d`.
    @inline(__always)
    func sourceFactor(distance d: Float, radius r: Float, scale s: Float) -> Float {
        switch kind {
        case .bump:
            let f = 1 - s * (1 - d / r)
            return f * f
        case .pinch:
            guard d > 0 else { return 1 }
            return powf(sinf(Float.pi / 2 * d / r), -s / 2)
        }
    }

    /// The same distortion in an image scaled by `factor` (the stylize job caps the long side).
    package func scaled(by factor: Double) -> Distortion {
        Distortion(kind, x: x * factor, y: y * factor, radius: radius * factor, scale: scale)
    }
}

extension PixelBuffer {
    /// The image with each distortion applied in turn, as chained Core Image filters would.
    package func distorted(by distortions: [Distortion]) -> PixelBuffer {
        distortions.reduce(self) { $0.distorted(by: $1) }
    }

    /// The image with one distortion applied. Only the rows the circle covers are touched, split
    /// across cores; everything else is copied as it is.
    package func distorted(by distortion: Distortion) -> PixelBuffer {
        let r = Float(distortion.radius), s = Float(distortion.scale)
        let cx = Float(distortion.x), cy = Float(distortion.y)
        guard r >= 1, r.isFinite, cx.isFinite, cy.isFinite, s.isFinite else { return self }
        let top = max(0, Int((cy - r).rounded(.down))), bottom = min(height - 1, Int((cy + r).rounded(.up)))
        guard top <= bottom else { return self }
        var output = pixels
        let (w, h, c) = (width, height, channels)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                let (src, dst) = (source.baseAddress!, target.baseAddress!)
                let maxX = Float(w - 1), maxY = Float(h - 1)
                Parallel.rows(bottom - top + 1, minimumPerBand: 8) { band in
                    for row in band {
                        let y = top + row
                        let dy = Float(y) - cy
                        let half = (r * r - dy * dy).squareRoot()
                        guard half.isFinite else { continue }
                        let left = max(0, Int((cx - half).rounded(.up))), right = min(w - 1, Int((cx + half).rounded(.down)))
                        guard left <= right else { continue }
                        for x in left...right {
                            let dx = Float(x) - cx
                            let d = (dx * dx + dy * dy).squareRoot()
                            guard d < r else { continue }
                            let k = distortion.sourceFactor(distance: d, radius: r, scale: s)
                            let sx = min(max(cx + dx * k, 0), maxX), sy = min(max(cy + dy * k, 0), maxY)
                            let x0 = Int(sx), y0 = Int(sy)
                            let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
                            let fx = sx - Float(x0), fy = sy - Float(y0)
                            let p00 = src + (y0 * w + x0) * c, p01 = src + (y0 * w + x1) * c
                            let p10 = src + (y1 * w + x0) * c, p11 = src + (y1 * w + x1) * c
                            let out = dst + (y * w + x) * c
                            for channel in 0..<c {
                                let top = Float(p00[channel]) + (Float(p01[channel]) - Float(p00[channel])) * fx
                                let bottom = Float(p10[channel]) + (Float(p11[channel]) - Float(p10[channel])) * fx
                                out[channel] = UInt8(min(255, max(0, top + (bottom - top) * fy + 0.5)))
                            }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: output)
    }
}
