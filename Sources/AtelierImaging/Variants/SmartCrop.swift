/// Where to cut a `cover` crop so it keeps the photo's subject: the window of the crop's size
/// that holds the most salience (``Saliency``: detail and colour that stand out from the frame),
/// found exhaustively on a copy of at most 256 px with a summed-area table — O(pixels), whatever
/// the crop. Among equally good windows the one nearest the centre wins, so a photo with nothing
/// standing out is cropped in the middle, as before.
package enum SmartCrop {
    static let workingSide = 256

    /// The top-left corner, in `photo`'s pixels, of the best `cropWidth` × `cropHeight` window.
    package static func origin(in photo: PixelBuffer, cropWidth: Int, cropHeight: Int) -> (x: Int, y: Int) {
        let (pw, ph) = (photo.width, photo.height)
        let centred = ((pw - cropWidth) / 2, (ph - cropHeight) / 2)
        guard cropWidth < pw || cropHeight < ph else { return (0, 0) }
        let small = photo.cappingLongSide(workingSide)
        let (w, h) = (small.width, small.height)
        guard w >= 8, h >= 8 else { return centred }
        let weights = Saliency.weights(small)
        // Summed-area table with a zero row and column in front.
        var table = [Double](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row = 0.0
            for x in 0..<w {
                row += weights[y * w + x]
                table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + row
            }
        }
        let total = table[h * (w + 1) + w]
        guard total > 0 else { return centred }
        let (sx, sy) = (Double(w) / Double(pw), Double(h) / Double(ph))
        let ww = max(1, min(w, Int((Double(cropWidth) * sx).rounded()))), wh = max(1, min(h, Int((Double(cropHeight) * sy).rounded())))
        var best = (score: -Double.infinity, x: 0, y: 0)
        let (cx, cy) = (Double(w - ww) / 2, Double(h - wh) / 2)
        for y in 0...(h - wh) {
            for x in 0...(w - ww) {
                let sum = table[(y + wh) * (w + 1) + x + ww] - table[y * (w + 1) + x + ww]
                    - table[(y + wh) * (w + 1) + x] + table[y * (w + 1) + x]
                // A tie-breaker far below any real difference in salience.
                let score = sum - total * 1e-6 * ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                if score > best.score { best = (score, x, y) }
            }
        }
        let x = min(pw - cropWidth, max(0, Int((Double(best.x) / sx).rounded())))
        let y = min(ph - cropHeight, max(0, Int((Double(best.y) / sy).rounded())))
        return (x, y)
    }
}
