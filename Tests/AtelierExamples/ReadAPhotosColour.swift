import AtelierImaging
import CAtelierColorFixtures
import XCTest

/// Decode a phone photo in sRGB and see what was done about its colour. `ImageCodec.decode`
/// honours the profile a file carries (an iPhone's photos are Display P3) and gives sRGB pixels;
/// `decodeReporting` also says what the file declared, whether the pixels were converted, and
/// notes for the job's log. `manageColor: false` gives the numbers as stored.
final class ReadAPhotosColour: XCTestCase {
    func testAP3PhotoDecodesToSRGBAndSaysSo() throws {
        // A JPEG of one orange whose numbers are Display P3, tagged with a P3 profile (one APP2
        // "ICC_PROFILE" chunk after SOI, as cameras write it).
        let orange = PixelBuffer(width: 64, height: 64, channels: 3, pixels: Array([[UInt8]](repeating: [230, 120, 40], count: 64 * 64).joined()))
        var size = 0
        let bytes = try XCTUnwrap(acf_rgb_profile(12, "Display P3", &size))
        let profile = Array(UnsafeBufferPointer(start: bytes, count: size))
        acf_free(bytes)
        let jpeg = Self.withoutProfile(try ImageCodec.encodeJPEG(orange, quality: 95))  // ours carries sRGB's
        let length = 2 + 14 + profile.count
        let tagged = [0xFF, 0xD8, 0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8) + [1, 1]
            + profile + jpeg.dropFirst(2)

        let decoded = try ImageCodec.decodeReporting(tagged)
        XCTAssertEqual(decoded.color.source, "ICC: Display P3")
        XCTAssertTrue(decoded.color.converted)
        XCTAssertEqual(decoded.color.notes, [])

        // The same numbers read as sRGB (what happens without colour management) are a duller
        // orange: less red, more blue than the photo's real colour.
        let asStored = try ImageCodec.decode(tagged, manageColor: false)
        let centre = (32 * 64 + 32) * 3
        XCTAssertGreaterThan(decoded.image.pixels[centre], asStored.pixels[centre])
        XCTAssertLessThan(decoded.image.pixels[centre + 2], asStored.pixels[centre + 2])

        // A profile of garbage: the photo is read as sRGB and the report says why (a worker puts
        // the note in the job's events); the decode does not fail.
        let garbage = [UInt8](repeating: 0x5A, count: 400)
        let damaged = [0xFF, 0xD8, 0xFF, 0xE2, 0x01, 0xA0] + Array("ICC_PROFILE\0".utf8) + [1, 1] + garbage + jpeg.dropFirst(2)
        let read = try ImageCodec.decodeReporting(damaged)
        XCTAssertFalse(read.color.converted)
        XCTAssertEqual(read.color.notes, ["the embedded colour profile is damaged; the image was read as sRGB"])
    }

    /// `jpeg` without its APP2 ICC segments.
    static func withoutProfile(_ jpeg: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        var at = 2
        while jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
            let end = at + 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
            if !(jpeg[at + 1] == 0xE2 && jpeg[(at + 4)..<(at + 16)].elementsEqual("ICC_PROFILE\0".utf8)) { out += jpeg[at..<end] }
            at = end
        }
        return out + jpeg[at...]
    }
}
