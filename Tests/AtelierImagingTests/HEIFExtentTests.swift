import AtelierImaging
import CAtelierCodecs
import XCTest

/// An item's data may be cut into extents ('iloc'; libheif 1.15 takes up to 32 an item, the
/// structure check took 1,024), and an extent with no length runs "to the end" of the file. The
/// structure check walks every coded image's data for HEVC parameter sets before libheif sees
/// the file, so what it reads must stay linear in the file: extents that each ran over the rest
/// of the file once made a 1 MB upload cost 47 s of the API's CPU (and a 25 MB one hours), the
/// walk stepping through one copy of the file per extent and rescanning the extents from the
/// first on every step.
final class HEIFExtentTests: XCTestCase {
    /// 32 extents that each run from the 'mdat' to the end of the file, over a zero-filled 'mdat',
    /// at 1 MB and at the 25 MB upload limit: refused as damaged from the header, with the reason,
    /// instead of walked 32 times; with 1,024 such extents, refused for their number.
    func testExtentsThatRepeatTheFileAreRefusedFromTheHeader() throws {
        for size in [1 << 20, 25 << 20] {
            let file = HEIFExtentBuilder.repeatedExtents(count: 32, zeroFilledDataOf: size)
            let (code, message) = Self.cProbe(file)
            XCTAssertEqual(code, Int32(AC_CORRUPT), "\(size) bytes")
            XCTAssertTrue(message.contains("extents repeat"), "\(size) bytes: \(message)")
            XCTAssertThrowsError(try ImageCodec.probe(file)) { error in
                XCTAssertEqual(error as? ImageError, .damaged(.heic))
            }
        }
        let many = HEIFExtentBuilder.repeatedExtents(count: 1024, zeroFilledDataOf: 25 << 20)
        let (code, message) = Self.cProbe(many)
        XCTAssertEqual(code, Int32(AC_CORRUPT))
        XCTAssertTrue(message.contains("cannot be located"), message)
    }

    /// Items that each claim the whole 'mdat' — each alone no longer than the file — are refused
    /// too: reading all of them would cost their number times the file.
    func testItemsThatShareTheirDataAreRefused() throws {
        let file = HEIFExtentBuilder.itemsSharingData(items: 2000, zeroFilledDataOf: 25 << 20)
        let (code, message) = Self.cProbe(file)
        XCTAssertEqual(code, Int32(AC_CORRUPT))
        XCTAssertTrue(message.contains("share their data"), message)
    }

    /// A real picture whose data is cut into many extents (allowed, and walked once) still decodes
    /// to the same pixels; cut into 3-byte extents around its HEVC parameter sets, the check still
    /// reads each set whole across the cuts and refuses one larger than the image.
    func testDataCutIntoExtentsIsReadAcrossTheCuts() throws {
        let picture = CodecTests.picture(width: 160, height: 120)
        let heic = try ImageCodec.encodeHEIC(picture, quality: 90)
        let original = try ImageCodec.decode(heic)
        for pieces in [1, 7, 32] {
            let cut = try XCTUnwrap(HEIFExtentBuilder.single(from: heic, pieces: pieces))
            let decoded = try ImageCodec.decode(cut)
            XCTAssertEqual(decoded.width, 160, "\(pieces) extents")
            XCTAssertEqual(decoded.pixels, original.pixels, "\(pieces) extents")
        }
        // The parameter sets moved from 'hvcC' into the item's data, in 3-byte extents, and the
        // image's 'ispe' shrunk below the picture they declare.
        let moved = try XCTUnwrap(HEIFExtentBuilder.single(from: heic, pieces: 1, parameterSetsInData: true,
                                                           parameterSetExtent: 3))
        XCTAssertEqual(try ImageCodec.decode(moved).width, 160, "with the sets in the data it still decodes")
        let shrunk = try XCTUnwrap(HEIFExtentBuilder.single(from: heic, pieces: 1, parameterSetsInData: true,
                                                            parameterSetExtent: 3, declaredSize: (32, 24)))
        let (code, message) = Self.cProbe(shrunk)
        XCTAssertEqual(code, Int32(AC_CORRUPT))
        XCTAssertTrue(message.contains("larger than the image"), message)
    }

    static func cProbe(_ file: [UInt8]) -> (Int32, String) {
        var result = ac_result()
        let code = file.withUnsafeBufferPointer { ac_heif_probe($0.baseAddress, $0.count, &result) }
        let message = withUnsafeBytes(of: result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return (code, message)
    }
}

/// HEIC files with one coded item (or many) whose data is given by hand-written 'iloc' extents,
/// from ISO/IEC 23008-12 (boxes written with HEIFGridBuilder's helpers).
enum HEIFExtentBuilder {
    typealias B = HEIFGridBuilder

    /// One 'hvc1' item, 64 × 64, with `count` extents that each start at the 'mdat' and have no
    /// length field (to the end of the file), over an 'mdat' of `size` zero bytes.
    static func repeatedExtents(count: Int, zeroFilledDataOf size: Int) -> [UInt8] {
        let hvcC = B.box("hvcC", [1] + [UInt8](repeating: 0, count: 21) + [0])
        // iloc v1: 4-byte offsets, no length, base or index; per item its id, construction
        // method, data reference and extent count, then the extents.
        func iloc(_ mdatAt: Int) -> [UInt8] {
            var body: [UInt8] = [0x40, 0x00] + B.u16(1) + B.u16(1) + B.u16(0) + B.u16(0) + B.u16(count)
            for _ in 0..<count { body += B.u32(mdatAt) }
            return B.fullBox("iloc", 1, 0, body)
        }
        let mdat = [UInt8](repeating: 0, count: size)
        let before = file(iloc: iloc(0), items: 1, configuration: hvcC, width: 64, height: 64, mdat: mdat)
        return file(iloc: iloc(before.count - size), items: 1, configuration: hvcC, width: 64, height: 64, mdat: mdat)
    }

    /// `items` 'hvc1' items, each with one extent over the whole zero-filled 'mdat'.
    static func itemsSharingData(items: Int, zeroFilledDataOf size: Int) -> [UInt8] {
        let hvcC = B.box("hvcC", [1] + [UInt8](repeating: 0, count: 21) + [0])
        func iloc(_ mdatAt: Int) -> [UInt8] {
            var body: [UInt8] = [0x44, 0x00] + B.u16(items)
            for item in 1...items { body += B.u16(item) + B.u16(0) + B.u16(0) + B.u16(1) + B.u32(mdatAt) + B.u32(size) }
            return B.fullBox("iloc", 1, 0, body)
        }
        let mdat = [UInt8](repeating: 0, count: size)
        let before = file(iloc: iloc(0), items: items, configuration: hvcC, width: 64, height: 64, mdat: mdat)
        return file(iloc: iloc(before.count - size), items: items, configuration: hvcC, width: 64, height: 64, mdat: mdat)
    }

    /// The single image of `heic` (a one-image HEIC from our encoder) rewritten with its data in
    /// `pieces` extents, in order. `parameterSetsInData` moves the VPS/SPS/PPS from 'hvcC' to the
    /// front of the data (4-byte length prefixes, as in the rest of the data), in extents of
    /// `parameterSetExtent` bytes (nil: one); `declaredSize` replaces the 'ispe'. Nil when the
    /// file is not one our encoder writes, or the extents would be more than libheif's 32.
    static func single(from heic: [UInt8], pieces: Int, parameterSetsInData: Bool = false,
                       parameterSetExtent: Int? = nil, declaredSize: (Int, Int)? = nil) -> [UInt8]? {
        guard let payload = B.payload(of: "mdat", in: heic), let whole = B.whole(box: "hvcC", in: heic),
              let ispe = B.payload(of: "ispe", in: heic), ispe.count >= 12 else { return nil }
        let width = declaredSize?.0 ?? Int(ispe[4]) << 24 | Int(ispe[5]) << 16 | Int(ispe[6]) << 8 | Int(ispe[7])
        let height = declaredSize?.1 ?? Int(ispe[8]) << 24 | Int(ispe[9]) << 16 | Int(ispe[10]) << 8 | Int(ispe[11])
        var configuration = whole
        var data = payload
        var cuts: [Int] = []  // lengths of the extents, in order
        if parameterSetsInData {
            // hvcC: 8-byte box header, 22 bytes of configuration, array count, then arrays of
            // (type, unit count, units of 2-byte length + NAL).
            let body = Array(whole.dropFirst(8))
            guard body.count >= 23 else { return nil }
            var units: [UInt8] = []
            var at = 23
            for _ in 0..<Int(body[22]) {
                guard at + 3 <= body.count else { return nil }
                let count = Int(body[at + 1]) << 8 | Int(body[at + 2])
                at += 3
                for _ in 0..<count {
                    guard at + 2 <= body.count else { return nil }
                    let length = Int(body[at]) << 8 | Int(body[at + 1])
                    guard at + 2 + length <= body.count else { return nil }
                    units += B.u32(length) + body[(at + 2)..<(at + 2 + length)]
                    at += 2 + length
                }
            }
            configuration = B.box("hvcC", Array(body[0..<22]) + [0])
            data = units + payload
            if let step = parameterSetExtent {
                cuts = stride(from: 0, to: units.count, by: step).map { min(step, units.count - $0) }
            } else {
                cuts = [units.count]
            }
        }
        // The rest in `pieces` extents of equal length, the last one taking what is left.
        let rest = data.count - cuts.reduce(0, +), piece = max(1, rest / pieces)
        for index in 0..<pieces where index * piece < rest {
            cuts.append(index == pieces - 1 ? rest - index * piece : min(piece, rest - index * piece))
        }
        guard cuts.count <= 32 else { return nil }
        func iloc(_ mdatAt: Int) -> [UInt8] {
            var body: [UInt8] = [0x44, 0x00] + B.u16(1) + B.u16(1) + B.u16(0) + B.u16(0) + B.u16(cuts.count)
            var offset = mdatAt
            for length in cuts {
                body += B.u32(offset) + B.u32(length)
                offset += length
            }
            return B.fullBox("iloc", 1, 0, body)
        }
        let before = file(iloc: iloc(0), items: 1, configuration: configuration, width: width, height: height, mdat: data)
        return file(iloc: iloc(before.count - data.count), items: 1, configuration: configuration, width: width,
                    height: height, mdat: data)
    }

    /// ftyp, meta (hdlr, pitm, iloc, iinf with `items` 'hvc1' items, iprp: the configuration and
    /// one 'ispe' shared by every item), mdat.
    private static func file(iloc: [UInt8], items: Int, configuration: [UInt8], width: Int, height: Int,
                             mdat: [UInt8]) -> [UInt8] {
        let ftyp = B.box("ftyp", Array("heic".utf8) + B.u32(0) + Array("mif1".utf8) + Array("heic".utf8))
        let hdlr = B.fullBox("hdlr", 0, 0, B.u32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = B.fullBox("pitm", 0, 0, B.u16(1))
        var entries: [UInt8] = []
        for item in 1...items { entries += B.fullBox("infe", 2, 0, B.u16(item) + B.u16(0) + Array("hvc1".utf8) + [0]) }
        let iinf = B.fullBox("iinf", 0, 0, B.u16(items) + entries)
        var associations: [UInt8] = B.u32(items)
        for item in 1...items { associations += B.u16(item) + [2, 0x81, 2] }
        let ipco = B.box("ipco", configuration + B.fullBox("ispe", 0, 0, B.u32(width) + B.u32(height)))
        let iprp = B.box("iprp", ipco + B.fullBox("ipma", 0, 0, associations))
        let meta = B.fullBox("meta", 0, 0, hdlr + pitm + iloc + iinf + iprp)
        return ftyp + meta + B.u32(8 + mdat.count) + Array("mdat".utf8) + mdat
    }
}
