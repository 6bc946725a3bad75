import AtelierImaging
import XCTest

/// Each style pinned by what makes its look — the measure a viewer would name (paper and
/// strokes along edges, rims and slow pigment, flat colour without specks, dots and ink) —
/// never by golden bytes.
final class StyleTests: XCTestCase {
    // MARK: Scenes

    /// A dark square on a light background: flat regions and one strong edge.
    static func squareOnLight(size: Int = 200) -> PixelBuffer {
        var image = PixelBuffer(width: size, height: size, channels: 3, fill: 210)
        for y in (size / 4)..<(size * 3 / 4) {
            for x in (size / 4)..<(size * 3 / 4) {
                let i = (y * size + x) * 3
                image.pixels[i] = 60; image.pixels[i + 1] = 80; image.pixels[i + 2] = 140
            }
        }
        return image
    }

    /// A noisy photo-like scene: the square on light ground with grain, so flatness is earned.
    static func grainySquare(size: Int = 200) -> PixelBuffer {
        var image = squareOnLight(size: size)
        var generator = SeededGenerator(seed: 7)
        for i in image.pixels.indices {
            image.pixels[i] = UInt8(max(0, min(255, Int(image.pixels[i]) + Int.random(in: -12...12, using: &generator))))
        }
        return image
    }

    /// Two flat washes side by side: light blue on the left, light orange on the right.
    static func twoWashes(size: Int = 256) -> PixelBuffer {
        var image = PixelBuffer(width: size, height: size, channels: 3, fill: 0)
        for y in 0..<size {
            for x in 0..<size {
                let colour: [UInt8] = x < size / 2 ? [150, 185, 225] : [235, 175, 120]
                for k in 0..<3 { image.pixels[(y * size + x) * 3 + k] = colour[k] }
            }
        }
        return image
    }

    // MARK: Measures

    static func luma(_ image: PixelBuffer, _ x: Int, _ y: Int) -> Double {
        let i = (y * image.width + x) * image.channels
        return 0.299 * Double(image.pixels[i]) + 0.587 * Double(image.pixels[i + 1]) + 0.114 * Double(image.pixels[i + 2])
    }

    static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }

    static func standardDeviation(_ values: [Double]) -> Double {
        let m = mean(values)
        return (values.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(values.count)).squareRoot()
    }

    /// 8-connected patches of pixels darker than `below` (luma), and their sizes.
    static func darkPatches(_ image: PixelBuffer, below: Double) -> [Int] {
        let (w, h) = (image.width, image.height)
        var seen = [Bool](repeating: false, count: w * h), sizes: [Int] = []
        for start in 0..<(w * h) where !seen[start] && luma(image, start % w, start / w) < below {
            var stack = [start], size = 0
            seen[start] = true
            while let i = stack.popLast() {
                size += 1
                for dy in -1...1 {
                    for dx in -1...1 {
                        let (x, y) = (i % w + dx, i / w + dy)
                        guard x >= 0, x < w, y >= 0, y < h, !seen[y * w + x], luma(image, x, y) < below else { continue }
                        seen[y * w + x] = true
                        stack.append(y * w + x)
                    }
                }
            }
            sizes.append(size)
        }
        return sizes
    }

    static func render(_ image: PixelBuffer, _ style: StyleID, intensity: Double = 0.5) -> PixelBuffer {
        var parameters = StyleParameters()
        parameters.intensity = intensity
        return Stylizer.render(image, style: style, parameters: parameters)
    }

    // MARK: Every style

    func testEveryStyleIsDeterministicAndIntensityChangesIt() {
        let image = Self.grainySquare()
        for style in StyleID.allCases {
            let once = Self.render(image, style), again = Self.render(image, style)
            XCTAssertEqual([once.width, once.height, once.channels], [200, 200, 3], "\(style)")
            XCTAssertEqual(once, again, "\(style) is deterministic")
            XCTAssertNotEqual(Self.render(image, style, intensity: 0.1), Self.render(image, style, intensity: 0.9), "\(style)")
        }
    }

    func testEveryStyleRendersTinyAndThinImages() {
        for (w, h) in [(1, 1), (2, 2), (1, 9), (9, 1), (3, 2), (33, 1), (31, 33), (65, 17)] {
            var image = PixelBuffer(width: w, height: h, channels: 3, fill: 0)
            for i in image.pixels.indices { image.pixels[i] = UInt8((i * 53) % 256) }
            for style in StyleID.allCases {
                let out = Self.render(image, style)
                XCTAssertEqual([out.width, out.height, out.channels], [w, h, 3], "\(style) \(w)x\(h)")
            }
        }
    }

    // MARK: sketch

    func testSketchIsGrayPaperWithADarkStrokeAlongTheEdge() {
        let sketch = Self.render(Self.squareOnLight(), .sketch)
        for index in stride(from: 0, to: sketch.pixels.count, by: 3) {
            XCTAssertEqual(sketch.pixels[index], sketch.pixels[index + 1])
            XCTAssertEqual(sketch.pixels[index], sketch.pixels[index + 2])
        }
        let ground = Self.mean((5..<40).flatMap { y in (5..<40).map { x in Self.luma(sketch, x, y) } })
        let edge = Self.mean((60..<140).map { y in (46...54).map { Self.luma(sketch, $0, y) }.min()! })
        XCTAssertGreaterThan(ground, 200, "flat light ground is paper")
        XCTAssertLessThan(edge, ground - 60, "the square's border is drawn: edge \(edge), ground \(ground)")
    }

    func testSketchStrokesRunAlongTheEdgesTheyDraw() {
        // A short dark bar, lying or standing: its strokes overshoot its ends along the edge
        // (a hand's line runs on) and stay thin across it. Strokes drawn across the edges
        // would do the opposite.
        for standing in [false, true] {
            var image = PixelBuffer(width: 256, height: 256, channels: 3, fill: 235)
            for along in 78..<178 {
                for across in 127..<129 {
                    let (x, y) = standing ? (across, along) : (along, across)
                    for k in 0..<3 { image.pixels[(y * 256 + x) * 3 + k] = 40 }
                }
            }
            let strokes = SketchStyle(intensity: 0.5).strokeMap(image)
            var (columns, rows) = (Set<Int>(), Set<Int>())
            for (i, value) in strokes.values.enumerated() where value < 0.8 {
                columns.insert(i % 256); rows.insert(i / 256)
            }
            let (alongEdge, acrossEdge) = standing ? (rows.count - 100, columns.count - 2) : (columns.count - 100, rows.count - 2)
            XCTAssertGreaterThan(alongEdge, acrossEdge + 2, "standing \(standing): beyond the bar \(alongEdge) px along, \(acrossEdge) px across")
        }
    }

    func testSketchLeavesLessPaperAsIntensityGrows() {
        // Paper: pixels at 230 or more. A bright scene is mostly paper at the default.
        func paper(_ intensity: Double) -> Double {
            let sketch = Self.render(Self.squareOnLight(), .sketch, intensity: intensity)
            return Double(stride(from: 0, to: sketch.pixels.count, by: 3).filter { sketch.pixels[$0] >= 230 }.count)
                / Double(sketch.width * sketch.height)
        }
        let (light, usual, strong) = (paper(0.1), paper(0.5), paper(0.9))
        XCTAssertGreaterThan(usual, 0.3, "paper shows")
        XCTAssertGreaterThan(light, usual)
        XCTAssertGreaterThan(usual, strong)
    }

    // MARK: cartoon

    /// Fraction of horizontal neighbours whose luma differs by at most 2: ~1 for flat colour.
    static func flatness(_ image: PixelBuffer) -> Double {
        var same = 0, total = 0
        for y in 0..<image.height {
            for x in 0..<(image.width - 1) {
                total += 1
                if abs(luma(image, x, y) - luma(image, x + 1, y)) <= 2 { same += 1 }
            }
        }
        return Double(same) / Double(total)
    }

    func testCartoonFlattensTheGrainAndInksTheOutline() {
        let image = Self.grainySquare()
        XCTAssertLessThan(Self.flatness(image), 0.3, "the input is grainy")
        let cartoon = Self.render(image, .cartoon)
        XCTAssertGreaterThan(Self.flatness(cartoon), 0.85, "cartoon regions are flat colour")
        XCTAssertLessThan((44...56).map { Self.luma(cartoon, $0, 100) }.min()!, 60, "the square's boundary is inked")
        XCTAssertGreaterThan(Self.luma(cartoon, 10, 10), 150, "the light ground stays light")
        XCTAssertGreaterThan(Self.luma(cartoon, 100, 100), 60, "the inside of the square is colour, not ink")
    }

    func testCartoonLeavesNoIsolatedSpecks() {
        // Pepper on the light ground: 2 × 2 dark flecks, as pits in a wall.
        var image = Self.squareOnLight(size: 256)
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<120 {
            let (x, y) = (Int.random(in: 2..<254, using: &generator), Int.random(in: 2..<254, using: &generator))
            guard x < 56 || x > 200 || y < 56 || y > 200 else { continue }
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                for k in 0..<3 { image.pixels[((y + dy) * 256 + x + dx) * 3 + k] = 40 }
            }
        }
        let specks = { (picture: PixelBuffer) in Self.darkPatches(picture, below: 120).filter { $0 < 60 }.count }
        XCTAssertGreaterThan(specks(image), 60, "the photo is specked")
        let cartoon = Self.render(image, .cartoon)
        XCTAssertLessThanOrEqual(specks(cartoon), 2, "no specks survive the abstraction")
        XCTAssertTrue(Self.darkPatches(cartoon, below: 120).contains { $0 >= 60 }, "the square's outline is still drawn")
    }

    // MARK: watercolor

    func testWatercolorDarkensTheRimOfEachWash() {
        let painting = Self.render(Self.twoWashes(), .watercolor)
        func band(_ xs: ClosedRange<Int>) -> Double { Self.mean(xs.flatMap { x in (20..<236).map { Self.luma(painting, x, $0) } }) }
        for (side, rim, inside) in [("blue", band(120...126), band(40...90)), ("orange", band(129...135), band(166...216))] {
            XCTAssertLessThan(rim, inside - 6, "pigment pools at the \(side) wash's rim: \(rim) vs \(inside)")
        }
    }

    func testWatercolorPigmentVariesSlowlyInsideAFlatWash() {
        var flat = PixelBuffer(width: 256, height: 256, channels: 3, fill: 0)
        for i in 0..<(256 * 256) { flat.pixels[i * 3] = 170; flat.pixels[i * 3 + 1] = 190; flat.pixels[i * 3 + 2] = 215 }
        let painting = Self.render(flat, .watercolor)
        let values = (0..<256).flatMap { y in (0..<256).map { x in Self.luma(painting, x, y) } }
        let spread = Self.standardDeviation(values)
        XCTAssertGreaterThan(spread, 3, "the wash is not flat: pigment gathers and thins")
        // Low frequency: the means of 16 × 16 blocks vary nearly as much as single pixels do.
        var blocks = [Double](repeating: 0, count: 16 * 16)
        for y in 0..<256 {
            for x in 0..<256 { blocks[(y / 16) * 16 + x / 16] += values[y * 256 + x] / 256 }
        }
        XCTAssertGreaterThan(Self.standardDeviation(blocks), 0.6 * spread, "most of the variation is slow: \(Self.standardDeviation(blocks)) of \(spread)")
        let before = ImageMeasurements.measure(Self.grainySquare()), after = ImageMeasurements.measure(Self.render(Self.grainySquare(), .watercolor))
        XCTAssertGreaterThan(after.meanSaturation, 0.05, "still colour, not gray")
        XCTAssertLessThan(after.laplacianVariance, before.laplacianVariance, "washes replace the grain")
    }

    // MARK: pop_art

    static func distinctColours(_ image: PixelBuffer) -> Int {
        var seen = Set<Int>()
        for i in stride(from: 0, to: image.pixels.count, by: image.channels) {
            seen.insert(Int(image.pixels[i]) << 16 | Int(image.pixels[i + 1]) << 8 | Int(image.pixels[i + 2]))
        }
        return seen.count
    }

    func testPopArtHasASmallPaletteHalftoneDotsAndBlackOutlines() {
        let image = Self.grainySquare()
        XCTAssertGreaterThan(Self.distinctColours(image), 1000)
        let style = PopArtStyle(intensity: 0.5)
        let popArt = style.apply(image)
        let levels = style.levels
        XCTAssertLessThanOrEqual(Self.distinctColours(popArt), 2 * levels * levels * levels + 1, "palette, its dot shades and ink")
        // The dark square is printed with dots: inside it, its colour and the dot shade alternate.
        var counts: [Int: Int] = [:]
        for y in 80..<120 {
            for x in 80..<120 {
                let i = (y * 200 + x) * 3
                counts[Int(popArt.pixels[i]) << 16 | Int(popArt.pixels[i + 1]) << 8 | Int(popArt.pixels[i + 2]), default: 0] += 1
            }
        }
        let dotted = 1 - Double(counts.values.max()!) / 1600
        XCTAssertTrue((0.15...0.85).contains(dotted), "dots cover part of the square, not all of it: \(dotted)")
        let border = (60..<140).filter { y in (44...56).contains { Self.luma(popArt, $0, y) < 30 } }.count
        XCTAssertGreaterThan(border, 70, "the square's outline is inked black along its side: \(border) of 80 rows")
    }

    // MARK: comic

    func testComicInksTheOutlineAndScreensShadowsByTheirDepth() {
        // Two shadows side by side, one deeper than the other, on a light ground.
        var image = PixelBuffer(width: 240, height: 200, channels: 3, fill: 215)
        for y in 50..<150 {
            for x in 30..<210 {
                let value: UInt8 = x < 120 ? 95 : 55
                for k in 0..<3 { image.pixels[(y * 240 + x) * 3 + k] = value }
            }
        }
        let comic = ComicStyle(intensity: 0.5).apply(image)
        func dotted(_ xs: Range<Int>) -> Double {
            let values = (70..<130).flatMap { y in xs.map { Self.luma(comic, $0, y) } }
            let lightest = values.max()!
            return Double(values.filter { $0 < lightest - 20 }.count) / Double(values.count)
        }
        let (shallow, deep) = (dotted(50..<100), dotted(140..<190))
        XCTAssertGreaterThan(shallow, 0.05, "the shadow carries dots")
        XCTAssertGreaterThan(deep, shallow + 0.1, "deeper shadow, larger dots (AM screen): \(deep) vs \(shallow)")
        XCTAssertLessThan((24...36).map { Self.luma(comic, $0, 100) }.min()!, 30, "ink along the boundary")
        XCTAssertGreaterThan(Self.luma(comic, 10, 10), 180, "light ground untouched by tone")
    }
}
