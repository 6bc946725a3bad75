import AtelierImaging
import Foundation
import XCTest

/// Every EXIF orientation on a real JPEG: the same compressed pixels with each APP1 Exif
/// orientation decode to the expected turn of the upright image, exactly.
final class OrientationTests: XCTestCase {
    /// An APP1 Exif segment holding only the orientation tag, in either byte order.
    static func exifSegment(_ orientation: Int, littleEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
        var tiff: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        tiff += u16(42) + u32(8)                      // header, IFD0 at offset 8
        tiff += u16(1)                                // one entry
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        tiff += u32(0)                                // no next IFD
        let payload: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The expected display of `stored` for each orientation, written independently of the
    /// library's switch: as sequences of mirror and quarter-turn steps.
    static func expected(_ stored: PixelBuffer, _ orientation: Int) -> PixelBuffer {
        func mirror(_ image: PixelBuffer) -> PixelBuffer { map(image, image.width, image.height) { x, y in (image.width - 1 - x, y) } }
        func turnClockwise(_ image: PixelBuffer) -> PixelBuffer { map(image, image.height, image.width) { x, y in (y, image.height - 1 - x) } }
        func map(_ image: PixelBuffer, _ w: Int, _ h: Int, _ from: (Int, Int) -> (Int, Int)) -> PixelBuffer {
            var out = [UInt8](repeating: 0, count: image.pixels.count)
            for y in 0..<h {
                for x in 0..<w {
                    let (sx, sy) = from(x, y)
                    for k in 0..<image.channels { out[(y * w + x) * image.channels + k] = image.pixels[(sy * image.width + sx) * image.channels + k] }
                }
            }
            return PixelBuffer(width: w, height: h, channels: image.channels, pixels: out)
        }
        let turn = turnClockwise
        switch orientation {
        case 2: return mirror(stored)
        case 3: return turn(turn(stored))
        case 4: return mirror(turn(turn(stored)))
        case 5: return mirror(turn(stored))          // transpose
        case 6: return turn(stored)
        case 7: return turn(mirror(stored))          // transverse
        case 8: return turn(turn(turn(stored)))
        default: return stored
        }
    }

    /// A real photo (Tests/AtelierImagingTests/Fixtures), read from the source tree.
    static func realPhoto() throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/dragonfly-192x144.jpg")
        return [UInt8](try Data(contentsOf: url))
    }

    func testEveryOrientationOnARealPhoto() throws {
        try checkEveryOrientation(of: try Self.realPhoto())
    }

    func testEveryOrientationInBothByteOrders() throws {
        try checkEveryOrientation(of: try ImageCodec.encodeJPEG(CodecTests.picture(width: 48, height: 32), quality: 90))
    }

    func checkEveryOrientation(of jpeg: [UInt8]) throws {
        let stored = try ImageCodec.decode(jpeg)
        XCTAssertEqual(ExifOrientation.read(jpeg: jpeg), .up)
        for orientation in 1...8 {
            for littleEndian in [true, false] {
                let tagged = Array(jpeg[0..<2]) + Self.exifSegment(orientation, littleEndian: littleEndian) + Array(jpeg[2...])
                XCTAssertEqual(ExifOrientation.read(jpeg: tagged).rawValue, orientation)
                let upright = try ImageCodec.decode(tagged)
                XCTAssertTrue(upright == Self.expected(stored, orientation), "orientation \(orientation), little endian \(littleEndian)")
                XCTAssertTrue(try ImageCodec.decode(tagged, applyOrientation: false) == stored)
            }
        }
    }

    func testMalformedExifIsIgnored() throws {
        let jpeg = try ImageCodec.encodeJPEG(CodecTests.picture(width: 16, height: 8))
        var segment = Self.exifSegment(6, littleEndian: true)
        segment.replaceSubrange(14..<18, with: [0xFF, 0xFF, 0xFF, 0x7F])  // IFD offset far outside
        let tagged = Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
        XCTAssertEqual(ExifOrientation.read(jpeg: tagged), .up)
        XCTAssertEqual(try ImageCodec.decode(tagged).width, 16)
    }
}
