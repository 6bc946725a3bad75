import AtelierImaging
import XCTest

/// Photo variants: the box each fit gives, the subject a cover crop keeps, the encodings.
final class VariantTests: XCTestCase {
    func testEachFitGivesItsBox() {
        func plan(_ w: Int?, _ h: Int?, _ fit: VariantFit) -> VariantPlan {
            VariantPlan.plan(photoWidth: 4000, photoHeight: 3000, width: w, height: h, fit: fit)
        }
        let cover = plan(512, 512, .cover)
        XCTAssertEqual([cover.canvasWidth, cover.canvasHeight], [512, 512])
        XCTAssertEqual([cover.source.width, cover.source.height, cover.source.x, cover.source.y], [3000, 3000, 500, 0], "the centre by default")
        let contain = plan(512, 512, .contain)
        XCTAssertEqual([contain.canvasWidth, contain.canvasHeight, contain.scaledWidth, contain.scaledHeight, contain.offsetY], [512, 512, 512, 384, 64])
        let inside = plan(512, 512, .inside)
        XCTAssertEqual([inside.canvasWidth, inside.canvasHeight], [512, 384])
        let widthOnly = plan(800, nil, .cover)
        XCTAssertEqual([widthOnly.canvasWidth, widthOnly.canvasHeight], [800, 600], "one side: the other follows the photo")
        let larger = plan(8000, 2000, .cover)
        XCTAssertEqual([larger.canvasWidth, larger.canvasHeight], [4000, 1000], "never enlarged; the box's shape kept")
        XCTAssertEqual([plan(9000, 9000, .inside).canvasWidth, plan(9000, 9000, .inside).canvasHeight], [4000, 3000])
    }

    /// A plain wall with a textured, coloured subject in its right third.
    static func subjectOnTheRight() -> PixelBuffer {
        var photo = PixelBuffer(width: 600, height: 300, channels: 3, fill: 200)
        for y in 90..<210 {
            for x in 460..<580 {
                let stripe = (x / 6 + y / 6) % 2 == 0
                let colour: [UInt8] = stripe ? [200, 40, 30] : [240, 190, 40]
                for k in 0..<3 { photo.pixels[(y * 600 + x) * 3 + k] = colour[k] }
            }
        }
        return photo
    }

    func testACoverCropKeepsAnOffCentreSubject() {
        let photo = Self.subjectOnTheRight()
        let square = PhotoVariant.variant(of: photo, VariantRequest(width: 150, height: 150, fit: .cover))
        XCTAssertEqual([square.width, square.height], [150, 150])
        func subjectShare(_ image: PixelBuffer) -> Double {
            let count = stride(from: 0, to: image.pixels.count, by: 3).filter { image.pixels[$0 + 2] < 100 }.count
            return Double(count) / Double(image.width * image.height)
        }
        // The subject is 120 px of the 300 px crop's 300: (120 / 300)² = 0.16 of it when whole.
        XCTAssertGreaterThan(subjectShare(square), 0.14, "the subject is in the crop")
        let centre = photo.cropped(x: 150, y: 0, width: 300, height: 300)!.resized(width: 150, height: 150)
        XCTAssertLessThan(subjectShare(centre), 0.01, "a centre crop would have missed it")
        let plain = PixelBuffer(width: 600, height: 300, channels: 3, fill: 128)
        XCTAssertEqual(SmartCrop.origin(in: plain, cropWidth: 300, cropHeight: 300).x, 150, "nothing stands out: the centre")
    }

    /// Width and height of an AVIF file: its `ftyp` brand is `avif`, its `ispe` box the size.
    static func avifSize(_ bytes: [UInt8]) -> [Int]? {
        guard bytes.count > 12, Array(bytes[4..<12]) == Array("ftypavif".utf8) else { return nil }
        let marker = Array("ispe".utf8)
        guard let at = (0..<(bytes.count - 16)).first(where: { Array(bytes[$0..<($0 + 4)]) == marker }) else { return nil }
        func u32(_ i: Int) -> Int { bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return [u32(at + 8), u32(at + 12)]
    }

    func testVariantsEncodeAsAskedWithinTheirBox() throws {
        let photo = Self.subjectOnTheRight()
        let jpeg = try ImageCodec.encodeJPEG(photo, quality: 90)
        for format in VariantFormat.allCases {
            for fit in VariantFit.allCases {
                let bytes = try PhotoVariant.render(jpeg, VariantRequest(width: 200, height: 200, fit: fit, format: format, quality: 75))
                let size: [Int]
                if format == .avif {
                    size = try XCTUnwrap(Self.avifSize(bytes), "an AVIF file")
                } else {
                    let info = try ImageCodec.probe(bytes)
                    XCTAssertEqual(info.format, format == .jpeg ? .jpeg : .webp)
                    size = [info.width, info.height]
                }
                XCTAssertEqual(size, fit == .inside ? [200, 100] : [200, 200], "\(format) \(fit)")
            }
        }
        XCTAssertThrowsError(try PhotoVariant.render([0xFF, 0xD8, 0xFF, 0x00], VariantRequest(width: 10, height: 10)))
    }
}
