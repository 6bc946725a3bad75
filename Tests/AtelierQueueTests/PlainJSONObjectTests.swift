import AtelierQueue
import Foundation
import XCTest

/// The scan that spares plain payloads the full JSON parse never says yes where
/// `JSONSerialization` (which judges everything else) would say no, and does say yes for the
/// payloads jobs really carry.
final class PlainJSONObjectTests: XCTestCase {
    private func parsedAsObject(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) is [String: Any]
    }

    private let corpus = [
        "{}", " {} ", #"{"a":1}"#, #"{"a": [1, 2.5, -0, true, false, null, {"b": "c"}]}"#, "[1]", "{oops", #"{"a":01}"#,
        #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":"\n"}"#, #"{"a":1e5}"#, #"{"a":"é"}"#, #"{"a":1}{}"#, #"{"a":1,"a":2}"#,
        #"{"a":-}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":tru}"#, #"{"a":nulll}"#, "\u{FEFF}{}", "{\"a\":\"\t\"}", "",
        #"{"a":123456789012345}"#, #"{"a":1234567890123456}"#, #"{"a":"\u0000"}"#, "{\"a\":\"\u{1}\"}",
        String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40),
        #"{"input": {"blob": "jobs/0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60/input.jpg", "format": "jpeg", "content_type": "image/jpeg", "bytes": 123456}, "style": "cartoon", "intensity": 0.5}"#,
    ]

    func testPlainPayloadsAreRecognisedWithoutTheFullParse() {
        for text in ["{}", #"{"ms": 250}"#, corpus.last!, #"{"a": [1, 2.5, -0, true, false, null, {"b": "c"}]}"#] {
            XCTAssertTrue(PlainJSONObject.accepts(text), text)
        }
        for text in ["[1]", "{oops", "", #"{"a":1}{}"#, #""{}""#, "null"] {
            XCTAssertFalse(PlainJSONObject.accepts(text), text)
        }
    }

    func testItNeverAcceptsWhatTheFullParserRefuses() {
        for text in corpus where PlainJSONObject.accepts(text) {
            XCTAssertTrue(parsedAsObject(text), text)
        }
        // Mutations of the corpus (a fixed seed, so every run checks the same texts).
        var random = SplitMix64(seed: 0x5EED)
        let alphabet = Array("{}[]\":,0123456789-.eEtruefalsn \\\t\nabcé")
        var scanned = 0
        for _ in 0..<20_000 {
            var characters = Array(corpus[Int(random.next() % UInt64(corpus.count))])
            for _ in 0...(random.next() % 3) {
                let index = Int(random.next() % UInt64(characters.count + 1))
                let character = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: characters.insert(character, at: index)
                case 1: if index < characters.count { characters.remove(at: index) }
                default: if index < characters.count { characters[index] = character }
                }
            }
            let text = String(characters)
            if PlainJSONObject.accepts(text) {
                scanned += 1
                XCTAssertTrue(parsedAsObject(text), "accepted by the scan, refused by JSONSerialization: \(text)")
            }
        }
        XCTAssertGreaterThan(scanned, 500, "the mutations reach texts the scan accepts")
    }
}

/// A small seeded generator, so the mutated texts are the same on every run.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
