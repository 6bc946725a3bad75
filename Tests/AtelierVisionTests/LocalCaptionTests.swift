import AtelierImaging
@testable import AtelierVision
import XCTest

/// The local provider's captions move the right way when one property of a photo changes, say
/// what they are, and do not change between runs.
final class LocalCaptionTests: XCTestCase {
    let provider = LocalVisionProvider()

    func caption(_ image: PixelBuffer) async throws -> Caption {
        try await provider.caption(VisionInput(image: image, encoded: [], mimeType: "image/jpeg"))
    }

    func testItSaysWhatItIsAndIsDeterministic() async throws {
        let photo = SyntheticPhotos.scene()
        let first = try await caption(photo), second = try await caption(photo)
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.provider, "atelier-local")
        XCTAssertEqual(first.model, "atelier-local-caption-1")
        XCTAssertTrue(["high", "medium", "low"].contains(first.confidence))
        XCTAssertNil(first.usage)
        XCTAssertGreaterThan(first.text.count, 40)
        XCTAssertTrue(first.text.hasSuffix("."))
    }

    func testDarkAndBrightPhotosAreToldApart() async throws {
        let dark = try await caption(SyntheticPhotos.scene(brightness: 0.3)).text
        let bright = try await caption(SyntheticPhotos.scene(brightness: 1.55)).text
        XCTAssertTrue(dark.contains("low-key") || dark.contains("dim") || dark.contains("darker"), dark)
        XCTAssertTrue(bright.contains("bright") || bright.contains("high-key") || bright.contains("light-filled"), bright)
        XCTAssertFalse(dark.contains("bright"), dark)
    }

    func testGreyAndSaturatedPhotosAreToldApart() async throws {
        let grey = try await caption(SyntheticPhotos.scene(saturation: 0)).text
        let colourful = try await caption(SyntheticPhotos.scene(saturation: 1)).text
        XCTAssertTrue(grey.contains("monochrome"), grey)
        XCTAssertTrue(colourful.contains("vivid") || colourful.contains("saturated") || colourful.contains("in "), colourful)
        XCTAssertFalse(colourful.contains("monochrome"), colourful)
        let reading = PhotoReading.read(SyntheticPhotos.scene(saturation: 1))
        XCTAssertTrue(reading.colour == .moderate || reading.colour == .vivid || reading.colour == .intense, "\(reading.colour)")
    }

    func testPortraitAndLandscapeFramesAreToldApart() async throws {
        let landscape = try await caption(SyntheticPhotos.scene()).text
        let portrait = try await caption(SyntheticPhotos.transposed(SyntheticPhotos.scene())).text
        XCTAssertTrue(landscape.contains("landscape-format") || landscape.contains("horizontal frame"), landscape)
        XCTAssertTrue(portrait.contains("portrait-format") || portrait.contains("vertical frame"), portrait)
    }

    func testBlurredAndSharpPhotosAreToldApart() async throws {
        let sharpPhoto = SyntheticPhotos.scene(width: 1024, height: 683)
        let sharp = PhotoReading.read(sharpPhoto), blurred = PhotoReading.read(SyntheticPhotos.blurred(sharpPhoto, sigma: 6))
        XCTAssertTrue([.sharp, .crisp].contains(sharp.sharpness), "\(sharp.sharpness) index \(PhotoReading.sharpnessIndex(sharp.measurements))")
        XCTAssertTrue([.blurred, .soft].contains(blurred.sharpness), "\(blurred.sharpness) index \(PhotoReading.sharpnessIndex(blurred.measurements))")
        let text = try await caption(SyntheticPhotos.blurred(sharpPhoto, sigma: 6)).text
        XCTAssertTrue(text.contains("blurred") || text.contains("soft"), text)
    }

    func testATinyImageClaimsNoDetailAndLowConfidence() async throws {
        // The caption API's own curl example sends a 1 × 1 PNG.
        let dot = try ImageCodec.decode([UInt8](Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!))
        let result = try await caption(dot)
        XCTAssertEqual(result.confidence, "low")
        XCTAssertTrue(result.text.contains("no detail"), result.text)
        XCTAssertFalse(result.text.contains("blurred") || result.text.contains("sharp"), result.text)
    }

    func testColourNamesAreEveryday() {
        XCTAssertEqual(ColourNames.name(red: 10, green: 10, blue: 10), "black")
        XCTAssertEqual(ColourNames.name(red: 250, green: 250, blue: 250), "white")
        XCTAssertEqual(ColourNames.name(red: 128, green: 128, blue: 128), "grey")
        XCTAssertEqual(ColourNames.name(red: 220, green: 30, blue: 30), "red")
        XCTAssertEqual(ColourNames.name(red: 30, green: 60, blue: 200), "blue")
        XCTAssertEqual(ColourNames.name(red: 20, green: 30, blue: 90), "deep blue")
        XCTAssertEqual(ColourNames.name(red: 120, green: 70, blue: 30), "brown")
        XCTAssertEqual(ColourNames.name(red: 40, green: 160, blue: 60), "green")
    }
}
