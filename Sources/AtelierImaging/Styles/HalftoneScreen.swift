/// The 45° screen of the halftone styles (`pop_art`'s Ben-Day dots, `comic`'s screentone): dot
/// centres on a grid of `cell`-pixel cells turned 45°. The grid repeats every
/// P = round(√2·cell) pixels in x and y, so one P × P tile of each position's squared distance
/// to its nearest dot centre (in cell units, 0…½) serves the whole image: a pixel is in a dot of
/// radius r where the tile says less than r².
struct HalftoneScreen {
    let period: Int
    /// Squared distance to the nearest dot centre, row by row over one period.
    let distances: [Float]

    init(cell: Float) {
        let period = max(4, Int((cell * Float(2).squareRoot()).rounded()))
        self.period = period
        distances = (0..<(period * period)).map { i in
            let (x, y) = (Float(i % period), Float(i / period))
            let u = (x + y) / Float(period), v = (x - y) / Float(period)
            let du = u - u.rounded(.down) - 0.5, dv = v - v.rounded(.down) - 0.5
            return du * du + dv * dv
        }
    }
}
