import AtelierImaging
import Foundation
import XCTest

/// Bump and pinch distortions (Core Image's parameters): what they do inside the circle,
/// nothing outside it, identity at scale 0 (the `warp` option's checks are the stylize contract's: AtelierJobsTests).
final class WarpTests: XCTestCase {
    /// A white 200 × 200 image with a black disc of `radius` at (100, 100).
    func disc(radius: Double) -> PixelBuffer {
        var image = PixelBuffer(width: 200, height: 200, channels: 3, fill: 255)
        for y in 0..<200 {
            for x in 0..<200 where hypot(Double(x) - 100, Double(y) - 100) <= radius {
                for c in 0..<3 { image.pixels[(y * 200 + x) * 3 + c] = 0 }
            }
        }
        return image
    }

    func darkPixels(_ image: PixelBuffer) -> Int {
        stride(from: 0, to: image.pixels.count, by: 3).filter { image.pixels[$0] < 128 }.count
    }

    func testScaleZeroChangesNothing() {
        let image = CodecTests.picture(width: 120, height: 90)
        XCTAssertEqual(image.distorted(by: Distortion(.bump, x: 60, y: 45, radius: 40, scale: 0)), image)
        XCTAssertEqual(image.distorted(by: Distortion(.pinch, x: 60, y: 45, radius: 40, scale: 0)), image)
    }

    func testBumpMagnifiesAndPinchShrinksInsideTheCircleOnly() {
        let small = disc(radius: 15)
        let bumped = small.distorted(by: Distortion(.bump, x: 100, y: 100, radius: 60, scale: 0.5))
        XCTAssertGreaterThan(darkPixels(bumped), darkPixels(small) * 2, "a bump magnifies the middle")
        let dented = small.distorted(by: Distortion(.bump, x: 100, y: 100, radius: 60, scale: -0.5))
        XCTAssertLessThan(darkPixels(dented), darkPixels(small), "a negative bump shrinks it")

        let large = disc(radius: 30)
        let pinched = large.distorted(by: Distortion(.pinch, x: 100, y: 100, radius: 60, scale: 1))
        XCTAssertLessThan(Double(darkPixels(pinched)), Double(darkPixels(large)) * 0.8, "a pinch draws the content in")

        // Outside the circle every pixel is untouched.
        let picture = CodecTests.picture(width: 200, height: 200)
        let warped = picture.distorted(by: Distortion(.bump, x: 100, y: 100, radius: 60, scale: 0.8))
        var changedOutside = 0
        for y in 0..<200 {
            for x in 0..<200 where hypot(Double(x) - 100, Double(y) - 100) >= 60 {
                let i = (y * 200 + x) * 3
                if warped.pixels[i..<i + 3] != picture.pixels[i..<i + 3] { changedOutside += 1 }
            }
        }
        XCTAssertEqual(changedOutside, 0)
        XCTAssertNotEqual(warped, picture)
    }

    func testCirclesReachingPastTheEdgesAreSafe() {
        let picture = CodecTests.picture(width: 64, height: 48)
        for center in [(-20.0, -20.0), (63.0, 47.0), (1000.0, 10.0)] {
            let warped = picture.distorted(by: [
                Distortion(.bump, x: center.0, y: center.1, radius: 50, scale: 1),
                Distortion(.pinch, x: center.0, y: center.1, radius: 80, scale: 2),
            ])
            XCTAssertEqual([warped.width, warped.height], [64, 48])
        }
    }
}
