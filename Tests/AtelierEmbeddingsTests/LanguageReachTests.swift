import AtelierEmbeddings
import Foundation
import XCTest

/// What README and docs/clients.md §7 say about Chinese knowledge points, held by the model
/// itself: all-MiniLM-L6-v2 is English, so a Chinese question scores about as high against an
/// unrelated Chinese note as against its own (both under the chat's 0.6 threshold), while
/// English pairs of the same shape score well above it. If a model change makes Chinese work,
/// this fails and the documents must change with it.
final class LanguageReachTests: XCTestCase {
    func cosine(_ encoder: MiniLMEncoder, _ query: String, _ note: String) -> Float {
        let (a, b) = (encoder.embed(query), encoder.embed(note))
        return zip(a, b).reduce(0) { $0 + $1.0 * $1.1 }
    }

    func testChineseIsFoundPoorlyAndEnglishWell() throws {
        let encoder = try MiniLMReferenceTests.encoder.get()
        let closure = "什么是闭包？\n闭包是可以捕获上下文中变量的代码块。"
        let own = cosine(encoder, "什么是闭包？", closure)
        let unrelated = cosine(encoder, "如何重置密码？", closure)
        let english = cosine(encoder, "What is a closure?",
                             "What is a closure?\nA closure is a block of code that captures variables from its context.")
        XCTAssertLessThan(own, 0.6, "a Chinese question against its own note stays under the chat's threshold")
        XCTAssertLessThan(abs(own - unrelated), 0.05, "and an unrelated Chinese question scores about the same: \(own) vs \(unrelated)")
        XCTAssertGreaterThan(english, 0.75, "English pairs of the same shape score well above it")
    }
}
