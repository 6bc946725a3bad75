import Foundation

/// Edge-preserving smoothing by the domain transform, recursive-filter variant (Gastal &
/// Oliveira, SIGGRAPH 2011). Each pass runs a first-order recursive filter along rows, then
/// along columns, whose feedback weight drops across colour edges; three iterations with
/// shrinking σ remove the streaks one pass would leave. Cost is O(pixels) whatever the σ.
/// - `sigmaSpatial`: how far smoothing reaches, in pixels (e.g. 60).
/// - `sigmaRange`: how large a colour step (0…255 scale) still counts as "the same region" (e.g. 40).
public struct DomainTransform: Sendable {
    public var sigmaSpatial: Float
    public var sigmaRange: Float
    public var iterations = 3

    public init(sigmaSpatial: Float, sigmaRange: Float) {
        self.sigmaSpatial = sigmaSpatial
        self.sigmaRange = sigmaRange
    }

    /// Smooths RGB (or gray) channels as floats, the edges judged on all channels together.
    public func apply(_ image: PixelBuffer) -> PixelBuffer {
        let c = min(3, image.channels), (w, h) = (image.width, image.height)
        var planes = [Float](repeating: 0, count: w * h * c)
        for index in 0..<(w * h) {
            for k in 0..<c { planes[index * c + k] = Float(image.pixels[index * image.channels + k]) }
        }
        // dI/dx and dI/dy summed over channels, on the input (the transform's domain).
        var dx = [Float](repeating: 0, count: w * h), dy = [Float](repeating: 0, count: w * h)
        let ratio = sigmaSpatial / sigmaRange
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if x > 0 {
                    var s: Float = 0
                    for k in 0..<c { s += abs(planes[i * c + k] - planes[(i - 1) * c + k]) }
                    dx[i] = 1 + ratio * s
                }
                if y > 0 {
                    var s: Float = 0
                    for k in 0..<c { s += abs(planes[i * c + k] - planes[(i - w) * c + k]) }
                    dy[i] = 1 + ratio * s
                }
            }
        }
        let n = Float(iterations)
        for iteration in 0..<iterations {
            let sigmaH = sigmaSpatial * sqrt(3) * pow(2, n - Float(iteration + 1)) / sqrt(pow(4, n) - 1)
            let a = exp(-sqrt(2) / sigmaH)
            Self.filterRows(&planes, dx, a: a, width: w, height: h, channels: c)
            Self.filterColumns(&planes, dy, a: a, width: w, height: h, channels: c)
        }
        var out = [UInt8](repeating: 0, count: w * h * image.channels)
        for index in 0..<(w * h) {
            for k in 0..<c { out[index * image.channels + k] = UInt8(max(0, min(255, planes[index * c + k] + 0.5))) }
            if image.channels == 4 { out[index * 4 + 3] = image.pixels[index * 4 + 3] }
        }
        return PixelBuffer(width: w, height: h, channels: image.channels, pixels: out)
    }

    private static func filterRows(_ planes: inout [Float], _ d: [Float], a: Float, width w: Int, height h: Int, channels c: Int) {
        planes.withUnsafeMutableBufferPointer { buffer in
            d.withUnsafeBufferPointer { dBuffer in
                let (p, dp) = (buffer.baseAddress!, dBuffer.baseAddress!)
                Parallel.rows(h) { rows in
                    for y in rows {
                        let row = p + y * w * c, dr = dp + y * w
                        for x in 1..<w {
                            let weight = pow(a, dr[x])
                            for k in 0..<c { row[x * c + k] += weight * (row[(x - 1) * c + k] - row[x * c + k]) }
                        }
                        if w > 1 {
                            for x in stride(from: w - 2, through: 0, by: -1) {
                                let weight = pow(a, dr[x + 1])
                                for k in 0..<c { row[x * c + k] += weight * (row[(x + 1) * c + k] - row[x * c + k]) }
                            }
                        }
                    }
                }
            }
        }
    }

    private static func filterColumns(_ planes: inout [Float], _ d: [Float], a: Float, width w: Int, height h: Int, channels c: Int) {
        // Row by row (cache-friendly): each row updates from the previous one, all columns at once.
        planes.withUnsafeMutableBufferPointer { buffer in
            d.withUnsafeBufferPointer { dBuffer in
                let (p, dp) = (buffer.baseAddress!, dBuffer.baseAddress!)
                let stride_ = w * c
                Parallel.rows(w, minimumPerBand: 64) { columns in
                    for y in 1..<h {
                        let row = p + y * stride_, previous = row - stride_, dr = dp + y * w
                        for x in columns {
                            let weight = pow(a, dr[x])
                            for k in 0..<c { row[x * c + k] += weight * (previous[x * c + k] - row[x * c + k]) }
                        }
                    }
                    if h > 1 {
                        for y in stride(from: h - 2, through: 0, by: -1) {
                            let row = p + y * stride_, next = row + stride_, dr = dp + (y + 1) * w
                            for x in columns {
                                let weight = pow(a, dr[x])
                                for k in 0..<c { row[x * c + k] += weight * (next[x * c + k] - row[x * c + k]) }
                            }
                        }
                    }
                }
            }
        }
    }
}
