/// Median-cut colour quantisation (Heckbert 1982): split the box of colours with the widest
/// channel range at its median until there are `count` boxes; each box's mean is a colour and
/// its population its share. Deterministic: the same image gives the same palette.
enum MedianCut {
    /// At most this many pixels are sorted: a regular sample of larger images (every k-th pixel)
    /// gives the same palette to within a percent of share, and sorting them all was most of a
    /// caption's time (docs/benchmarks/captions.md, what changed).
    static let maxSamples = 32_768

    static func dominantColours(_ rgb: PixelBuffer, count: Int) -> [ImageMeasurements.DominantColour] {
        let c = rgb.channels
        let step = max(1, (rgb.pixelCount + maxSamples - 1) / maxSamples)
        var colours: [SIMD3<UInt8>] = []
        colours.reserveCapacity(rgb.pixelCount / step + 1)
        for index in stride(from: 0, to: rgb.pixelCount, by: step) {
            colours.append(SIMD3(rgb.pixels[index * c], rgb.pixels[index * c + 1], rgb.pixels[index * c + 2]))
        }
        var boxes: [ArraySlice<SIMD3<UInt8>>] = [colours[...]]
        while boxes.count < count {
            // The box with the widest single-channel range that can still be split.
            var best = -1, bestRange = 0, bestChannel = 0
            for (i, box) in boxes.enumerated() where box.count > 1 {
                var low = SIMD3<UInt8>(repeating: 255), high = SIMD3<UInt8>(repeating: 0)
                for colour in box {
                    low = pointwiseMin(low, colour)
                    high = pointwiseMax(high, colour)
                }
                for channel in 0..<3 where Int(high[channel]) - Int(low[channel]) > bestRange {
                    (best, bestRange, bestChannel) = (i, Int(high[channel]) - Int(low[channel]), channel)
                }
            }
            guard best >= 0 else { break }  // every box is a single colour
            let sorted = boxes[best].sorted { $0[bestChannel] < $1[bestChannel] }
            let middle = sorted.count / 2
            boxes[best] = sorted[..<middle]
            boxes.append(sorted[middle...])
        }
        let total = Double(colours.count)
        var result = boxes.filter { !$0.isEmpty }.map { box -> ImageMeasurements.DominantColour in
            var sum = SIMD3<Int>(repeating: 0)
            for colour in box { sum &+= SIMD3<Int>(truncatingIfNeeded: colour) }
            let mean = sum / box.count
            return .init(red: UInt8(mean.x), green: UInt8(mean.y), blue: UInt8(mean.z), fraction: Double(box.count) / total)
        }
        // Boxes of the same colour (a flat region split in two) are one colour.
        var merged: [ImageMeasurements.DominantColour] = []
        for colour in result {
            if let index = merged.firstIndex(where: { ($0.red, $0.green, $0.blue) == (colour.red, colour.green, colour.blue) }) {
                merged[index].fraction += colour.fraction
            } else {
                merged.append(colour)
            }
        }
        result = merged.sorted { $0.fraction > $1.fraction }
        return result
    }
}
