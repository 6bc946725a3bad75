import AtelierHashing
import AtelierImaging

/// Each advisor's picture: a Mondrian-style composition generated from the advisor's palette
/// (no photographs of anyone, no copyrighted work). The same advisor always gets the same
/// picture: the grid is seeded by the advisor's id.
package enum AdvisorPortrait {
    package static func render(_ advisor: Advisor, size: Int = 256) -> PixelBuffer {
        var image = PixelBuffer(width: size, height: size, channels: 3, fill: 246)
        var state = FNV1a.hash(advisor.id.utf8)
        func next(_ bound: Int) -> Int {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
        }
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ colour: (UInt8, UInt8, UInt8)) {
            for y in max(0, y0)..<min(size, y1) {
                for x in max(0, x0)..<min(size, x1) {
                    let i = (y * size + x) * 3
                    image.pixels[i] = colour.0; image.pixels[i + 1] = colour.1; image.pixels[i + 2] = colour.2
                }
            }
        }
        // Split the square into rectangles, each split at a random third-ish position.
        var cells = [(0, 0, size, size)]
        var index = 0
        while index < cells.count, cells.count < 9 {
            let (x0, y0, x1, y1) = cells[index]
            let (w, h) = (x1 - x0, y1 - y0)
            if max(w, h) > size / 4 {
                cells.remove(at: index)
                if w >= h {
                    let cut = x0 + w / 4 + next(w / 2)
                    cells += [(x0, y0, cut, y1), (cut, y0, x1, y1)]
                } else {
                    let cut = y0 + h / 4 + next(h / 2)
                    cells += [(x0, y0, x1, cut), (x0, cut, x1, y1)]
                }
            } else {
                index += 1
            }
        }
        let line = max(3, size / 40)
        for (n, cell) in cells.enumerated() where n % 2 == 0 || next(3) == 0 {
            fill(cell.0, cell.1, cell.2, cell.3, advisor.palette[next(advisor.palette.count)])
        }
        for cell in cells {
            fill(cell.0 - line / 2, cell.1, cell.0 + line / 2 + 1, cell.3, (20, 20, 20))
            fill(cell.0, cell.1 - line / 2, cell.2, cell.1 + line / 2 + 1, (20, 20, 20))
        }
        return image
    }
}
