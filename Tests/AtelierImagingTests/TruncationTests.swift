import AtelierImaging
import XCTest

/// A file cut short (an interrupted phone upload) or damaged in its pixel data is refused with
/// ``ImageError/damaged(_:)`` — never decoded into a partly grey picture — and the message
/// carries no library text. Where the file's structure shows the cut (a JPEG without its EOI, a
/// PNG whose chunks run past the end, a WebP shorter than its RIFF size, a HEIC whose items
/// point past the end), the header probe already refuses it, so the API answers 400 at upload.
final class TruncationTests: XCTestCase {
    let picture = CodecTests.picture(width: 160, height: 120)

    /// Decode and probe both throw exactly the damaged error of `format`.
    private func assertDamaged(_ bytes: [UInt8], _ format: ImageFormat, probe: Bool = true, _ name: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ImageFormat.sniff(bytes), format, "\(name) still looks like its format", file: file, line: line)
        var calls: [(String, () throws -> Void)] = [("decode", { _ = try ImageCodec.decode(bytes) })]
        if probe { calls.append(("probe", { _ = try ImageCodec.probe(bytes) })) }
        for (what, call) in calls {
            XCTAssertThrowsError(try call(), "\(name): \(what)", file: file, line: line) { error in
                XCTAssertEqual(error as? ImageError, ImageError.damaged(format), "\(name): \(what)", file: file, line: line)
                let message = (error as? ImageError)?.message ?? ""
                for library in ["Premature", "Corrupt JPEG", "read beyond", "libpng", "iloc", "Invalid input", "VP8", "/"] {
                    XCTAssertFalse(message.contains(library), "\(name): \(what) quotes the library: \(message)", file: file, line: line)
                }
            }
        }
    }

    // MARK: JPEG

    func testARealJPEGCutMidScanIsDamaged() throws {
        let photo = try OrientationTests.realPhoto()
        XCTAssertEqual(try ImageCodec.decode(photo).width, 192, "the whole file decodes")
        let scan = try XCTUnwrap(JPEGSegments.scans(in: photo).first)
        for fraction in [0.1, 0.5, 0.9] {
            let cut = scan.lowerBound + Int(Double(scan.count) * fraction)
            assertDamaged(Array(photo[..<cut]), .jpeg, "real photo cut at \(Int(fraction * 100)) % of its scan")
        }
        assertDamaged(Array(photo.dropLast(2)), .jpeg, "real photo without its EOI")
    }

    func testAProgressiveJPEGCutInALaterScanIsDamaged() throws {
        let jpeg = try ImageCodec.encodeJPEG(picture, progressive: true)
        let scans = JPEGSegments.scans(in: jpeg)
        XCTAssertGreaterThan(scans.count, 2)
        // Cut in the middle of the third scan: the first two already give a blurry picture.
        let third = scans[2]
        assertDamaged(Array(jpeg[..<(third.lowerBound + third.count / 2)]), .jpeg, "progressive JPEG cut in scan 3")
        // Cut just before a later SOS: every scan so far is whole, the rest is missing.
        assertDamaged(Array(jpeg[..<scans[scans.count - 1].lowerBound]), .jpeg, "progressive JPEG missing its last scan")
    }

    func testJPEGEntropyDataDamageIsRefusedWhileDecoding() throws {
        // The structure is intact (EOI present: the probe passes) but a marker sits in the
        // middle of the scan — what libjpeg reports as "premature end of data segment".
        let photo = try OrientationTests.realPhoto()
        let scan = try XCTUnwrap(JPEGSegments.scans(in: photo).first)
        var damaged = Array(photo[..<(scan.lowerBound + scan.count / 2)])
        damaged += [0xFF, 0xD9]
        XCTAssertNoThrow(try ImageCodec.probe(damaged), "the header and EOI look fine")
        assertDamaged(damaged, .jpeg, probe: false, "real photo with its scan's second half missing before EOI")
    }

    func testHarmlessJPEGOddsStillDecode() throws {
        let photo = try OrientationTests.realPhoto()
        let whole = try ImageCodec.decode(photo)
        // Bytes after EOI (phones append data: motion photos, maker trailers).
        XCTAssertEqual(try ImageCodec.decode(photo + Array(repeating: 0x5A, count: 300)), whole)
        // Stray bytes between the scan and EOI: libjpeg's "extraneous bytes before marker", seen
        // in complete photos from some cameras; the pixels are all there.
        let extraneous = Array(photo.dropLast(2)) + [0x00, 0x12, 0xFF, 0xD9]
        XCTAssertEqual(try ImageCodec.decode(extraneous), whole)
    }

    // MARK: PNG

    func testAPNGCutMidIDATIsDamaged() throws {
        for channels in [3, 4] {
            let png = try ImageCodec.encodePNG(CodecTests.picture(width: 160, height: 120, channels: channels))
            let idat = try XCTUnwrap(PNGChunks.range(of: "IDAT", in: png))
            assertDamaged(Array(png[..<(idat.lowerBound + idat.count / 2)]), .png, "PNG (\(channels) channels) cut mid-IDAT")
            assertDamaged(Array(png[..<idat.upperBound]), .png, "PNG (\(channels) channels) cut after IDAT")
            assertDamaged(Array(png.dropLast(12)), .png, "PNG (\(channels) channels) without IEND")
            // Bytes after IEND are not the image's business.
            XCTAssertNoThrow(try ImageCodec.decode(png + [1, 2, 3]))
        }
    }

    // MARK: WebP and HEIC

    func testAWebPCutShortIsDamaged() throws {
        for (name, webp) in [("lossy", try ImageCodec.encodeWebP(picture, quality: 80)),
                             ("lossless", try ImageCodec.encodeWebP(picture, lossless: true))] {
            for fraction in [0.3, 0.6, 0.95] {
                assertDamaged(Array(webp.prefix(Int(Double(webp.count) * fraction))), .webp, "\(name) WebP cut at \(Int(fraction * 100)) %")
            }
            assertDamaged(Array(webp.dropLast(1)), .webp, "\(name) WebP one byte short")
            XCTAssertNoThrow(try ImageCodec.decode(webp + [0, 0, 0, 0]), "bytes after the RIFF chunk")
        }
    }

    func testAHEICCutShortIsDamaged() throws {
        let heic = try ImageCodec.encodeHEIC(picture, quality: 60)
        for fraction in [0.3, 0.6, 0.95] {
            assertDamaged(Array(heic.prefix(Int(Double(heic.count) * fraction))), .heic, "HEIC cut at \(Int(fraction * 100)) %")
        }
        assertDamaged(Array(heic.dropLast(1)), .heic, "HEIC one byte short")
    }
}

/// A PNG's chunks by their type.
enum PNGChunks {
    /// The byte range of the first chunk of `type` (length, type, data, CRC).
    static func range(of type: String, in png: [UInt8]) -> Range<Int>? {
        var index = 8
        while index + 12 <= png.count {
            let length = Int(png[index]) << 24 | Int(png[index + 1]) << 16 | Int(png[index + 2]) << 8 | Int(png[index + 3])
            if png[(index + 4)..<(index + 8)].elementsEqual(type.utf8) { return index..<(index + 12 + length) }
            index += 12 + length
        }
        return nil
    }
}
