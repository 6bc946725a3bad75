/// A grid HEIC as cameras write them (an iPhone stores 512 × 512 HEVC tiles under one 'grid'
/// item), assembled from single-image HEICs made by libheif's encoder: libheif 1.15 decodes
/// grids but cannot write one, so the boxes are written here from ISO/IEC 23008-12.
enum HEIFGridBuilder {
    /// `tiles`: `columns` × `rows` single-image HEIC files of `tileSide` × `tileSide`, row by row.
    /// The grid shows `width` × `height` of them (the rest cropped), turned by `rotation` × 90°
    /// anticlockwise ('irot'), described as nclx `primaries`/`transfer` ('colr').
    static func make(tiles: [[UInt8]], columns: Int, rows: Int, tileSide: Int, width: Int, height: Int,
                     rotation: Int, primaries: Int, transfer: Int) -> [UInt8] {
        let payloads = tiles.map { payload(of: "mdat", in: $0)! }
        let configurations = tiles.map { whole(box: "hvcC", in: $0)! }
        let ftyp = box("ftyp", Array("heic".utf8) + u32(0) + Array("mif1".utf8) + Array("heic".utf8))
        func meta(firstTileOffset: Int) -> [UInt8] {
            let count = tiles.count
            let hdlr = fullBox("hdlr", 0, 0, u32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
            let pitm = fullBox("pitm", 0, 0, u16(1))
            var entries: [UInt8] = []
            entries += fullBox("infe", 2, 0, u16(1) + u16(0) + Array("grid".utf8) + [0])
            for tile in 0..<count { entries += fullBox("infe", 2, 1, u16(tile + 2) + u16(0) + Array("hvc1".utf8) + [0]) }
            let iinf = fullBox("iinf", 0, 0, u16(count + 1) + entries)
            // iloc v1: 4-byte offsets and lengths, no base offset or index.
            var locations: [UInt8] = [0x44, 0x00] + u16(count + 1)
            locations += u16(1) + u16(1) + u16(0) + u16(1) + u32(0) + u32(8)   // the grid: 8 bytes of idat
            var offset = firstTileOffset
            for (tile, data) in payloads.enumerated() {
                locations += u16(tile + 2) + u16(0) + u16(0) + u16(1) + u32(offset) + u32(data.count)
                offset += data.count
            }
            let iloc = fullBox("iloc", 1, 0, locations)
            let idat = box("idat", [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + u16(width) + u16(height))
            // Properties: each tile's hvcC (1…count), the tiles' ispe, the grid's ispe, irot, colr.
            var properties = configurations.flatMap { $0 }
            properties += fullBox("ispe", 0, 0, u32(tileSide) + u32(tileSide))
            properties += fullBox("ispe", 0, 0, u32(width) + u32(height))
            properties += box("irot", [UInt8(rotation & 3)])
            properties += box("colr", Array("nclx".utf8) + u16(primaries) + u16(transfer) + u16(6) + [0x80])
            var associations: [UInt8] = u32(count + 1)
            associations += u16(1) + [3, UInt8(count + 2), 0x80 | UInt8(count + 3), 0x80 | UInt8(count + 4)]
            for tile in 0..<count { associations += u16(tile + 2) + [2, 0x80 | UInt8(tile + 1), UInt8(count + 1)] }
            let iprp = box("iprp", box("ipco", properties) + fullBox("ipma", 0, 0, associations))
            let iref = fullBox("iref", 0, 0, box("dimg", u16(1) + u16(count) + (0..<count).flatMap { u16($0 + 2) }))
            return fullBox("meta", 0, 0, hdlr + pitm + iloc + iinf + iprp + iref + idat)
        }
        let size = meta(firstTileOffset: 0).count
        let mdat = box("mdat", payloads.flatMap { $0 })
        return ftyp + meta(firstTileOffset: ftyp.count + size + 8) + mdat
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(8 + payload.count) + Array(type.utf8) + payload }

    static func fullBox(_ type: String, _ version: UInt8, _ flags: UInt32, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload)
    }

    /// The first box of `type` anywhere in `bytes` (size, type and payload), found by its fourcc.
    static func whole(box type: String, in bytes: [UInt8]) -> [UInt8]? {
        let fourcc = Array(type.utf8)
        for at in 4..<(bytes.count - 4) where Array(bytes[at..<(at + 4)]) == fourcc {
            let size = Int(bytes[at - 4]) << 24 | Int(bytes[at - 3]) << 16 | Int(bytes[at - 2]) << 8 | Int(bytes[at - 1])
            if size >= 8, at - 4 + size <= bytes.count { return Array(bytes[(at - 4)..<(at - 4 + size)]) }
        }
        return nil
    }

    static func payload(of type: String, in bytes: [UInt8]) -> [UInt8]? { whole(box: type, in: bytes).map { Array($0.dropFirst(8)) } }

    static func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
