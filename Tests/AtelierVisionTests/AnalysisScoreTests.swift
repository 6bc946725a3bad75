import AtelierImaging
@testable import AtelierVision
import Foundation
import XCTest

/// Analysis scores move the right way when a photo is blurred, over-exposed or tilted, and each
/// advisor's grade weighs their focus areas.
final class AnalysisScoreTests: XCTestCase {
    func scores(_ image: PixelBuffer) -> DimensionScores { DimensionScores(PhotoReading.read(image)) }

    func testBlurLowersFocusAndTechnique() {
        let photo = SyntheticPhotos.scene(width: 768, height: 512)
        let sharp = scores(photo), blurred = scores(SyntheticPhotos.blurred(photo, sigma: 5))
        XCTAssertLessThan(blurred[.focus].value, sharp[.focus].value - 3, "\(blurred[.focus]) vs \(sharp[.focus])")
        XCTAssertLessThan(blurred[.technique].value, sharp[.technique].value)
    }

    func testOverExposureLowersLighting() {
        let photo = SyntheticPhotos.scene(width: 480, height: 320)
        let normal = scores(photo), blown = scores(SyntheticPhotos.scene(width: 480, height: 320, brightness: 2.2))
        XCTAssertLessThan(blown[.lighting].value, normal[.lighting].value - 2, "\(blown[.lighting]) vs \(normal[.lighting])")
        XCTAssertTrue(blown[.lighting].evidence.contains { $0.contains("blown") })
    }

    func testATiltedHorizonLowersComposition() {
        let level = scores(SyntheticPhotos.horizon(degrees: 0)), tilted = scores(SyntheticPhotos.horizon(degrees: 5))
        XCTAssertLessThan(tilted[.composition].value, level[.composition].value - 1.5, "\(tilted[.composition]) vs \(level[.composition])")
        XCTAssertTrue(tilted[.composition].evidence.contains { $0.contains("tilts") }, "\(tilted[.composition].evidence)")
        XCTAssertLessThan(tilted[.technique].value, level[.technique].value)
    }

    func testAdvisorsWeighTheirFocusAreas() {
        let photo = SyntheticPhotos.scene(width: 768, height: 512)
        let sharp = scores(photo), blurred = scores(SyntheticPhotos.blurred(photo, sigma: 5))
        func drop(_ id: String) -> Double {
            AdvisorReview(advisor: Advisor.named(id)!, scores: sharp).overall - AdvisorReview(advisor: Advisor.named(id)!, scores: blurred).overall
        }
        // Blur costs Weston (focus is one of his focus areas) more than Leiter (colour, depth, impact).
        XCTAssertGreaterThan(drop("weston"), drop("leiter") + 0.5)
        let weston = AdvisorReview(advisor: Advisor.named("weston")!, scores: blurred)
        XCTAssertTrue(weston.recommendations.contains { $0.hasPrefix("Focus") }, "\(weston.recommendations)")
        XCTAssertTrue(weston.feedback.joined().contains("Focus & Sharpness"), "\(weston.feedback)")
        XCTAssertTrue(["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D", "F"].contains(weston.grade))
    }

    func testNineAdvisorsWithEverythingTheAppNeeds() {
        XCTAssertEqual(Advisor.all.count, 9)
        XCTAssertEqual(Set(Advisor.all.map(\.id)).count, 9)
        for advisor in Advisor.all {
            XCTAssertEqual(advisor.focusAreas.count, 3, advisor.id)
            XCTAssertFalse(advisor.specialty.isEmpty || advisor.opening.isEmpty, advisor.id)
            XCTAssertTrue(advisor.praise.contains("%@") && advisor.concern.contains("%@"), advisor.id)
        }
    }
}
