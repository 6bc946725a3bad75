import Foundation

extension FloatPlane {
    /// The difference of Gaussians of the line-drawing methods (Winnemöller, Olsen & Gooch 2006;
    /// XDoG, Winnemöller et al. 2012): D = G_σ − τ·G_{1.6σ}. With τ just below 1 a flat region
    /// gives D = (1 − τ)·L ≥ 0 and the dark side of every edge a negative D, so "D < threshold"
    /// draws a line along edges and nothing in flat areas, however bright or dark they are.
    /// G(1.6σ) = G(σ) ∗ G(σ·√(1.6² − 1)): the wide blur starts from the narrow one.
    package func differenceOfGaussians(sigma: Float, tau: Float) -> FloatPlane {
        let narrow = gaussianBlurred(sigma: sigma)
        let wide = narrow.gaussianBlurred(sigma: sigma * (1.6 * 1.6 - 1).squareRoot())
        var out = narrow.values
        out.withUnsafeMutableBufferPointer { target in
            wide.values.withUnsafeBufferPointer { source in
                let (dst, wp) = (target.baseAddress!, source.baseAddress!)
                Parallel.rows(height) { rows in
                    for i in (rows.lowerBound * width)..<(rows.upperBound * width) { dst[i] -= tau * wp[i] }
                }
            }
        }
        return FloatPlane(width: width, height: height, values: out)
    }
}
