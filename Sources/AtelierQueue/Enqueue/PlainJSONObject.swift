/// A fast answer to "is this text a JSON object?" for the plain texts jobs carry, without
/// building the object. Every enqueued payload, job result and progress detail is checked;
/// `JSONSerialization` builds the whole object only for its top-level type to be looked at
/// (many times this scan's cost for a stylize-like payload, timed in a standalone loop; the
/// client's share of an insert: docs/benchmarks/queue.md, "Enqueue at scale"), which for a batch of 100
/// such jobs is a large part of the client's work per insert.
///
/// It answers `true` only for a subset of JSON that the full parser certainly accepts: an
/// object of objects, arrays, `true`/`false`/`null`, strings without escapes or control
/// characters, and numbers of at most 15 digits without an exponent, nested at most 32 deep.
/// Anything else — every invalid text, and valid text outside that subset — answers `false`,
/// and the caller asks the full parser, so what is accepted, and every error, is unchanged
/// (`PlainJSONObjectTests` compares the two on mutated texts).
package enum PlainJSONObject {
    package static func accepts(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            scanner.skipSpace()
            guard scanner.peek() == UInt8(ascii: "{"), scanner.value(depth: 0) else { return false }
            scanner.skipSpace()
            return scanner.index == bytes.count
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < 32, let byte = peek() else { return false }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return false
            }
        }

        mutating func object(depth: Int) -> Bool {
            index += 1  // {
            skipSpace()
            if take(UInt8(ascii: "}")) { return true }
            while true {
                skipSpace()
                guard peek() == UInt8(ascii: "\""), string() else { return false }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return false }
                skipSpace()
                guard value(depth: depth) else { return false }
                skipSpace()
                if take(UInt8(ascii: "}")) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
            }
        }

        mutating func array(depth: Int) -> Bool {
            index += 1  // [
            skipSpace()
            if take(UInt8(ascii: "]")) { return true }
            while true {
                skipSpace()
                guard value(depth: depth) else { return false }
                skipSpace()
                if take(UInt8(ascii: "]")) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
            }
        }

        /// A string with no escape and no control character (the full parser judges those).
        mutating func string() -> Bool {
            index += 1  // "
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return true }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return false }
            }
            return false
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// -?(0|[1-9][0-9]*)(.[0-9]+)? with at most 15 digits: a Double holds it exactly.
        mutating func number() -> Bool {
            _ = take(UInt8(ascii: "-"))
            var digits = 0
            guard let first = peek(), isDigit(first) else { return false }
            if first == UInt8(ascii: "0") {
                index += 1
                digits = 1
            } else {
                digits += digitRun()
            }
            if take(UInt8(ascii: ".")) {
                let fraction = digitRun()
                guard fraction > 0 else { return false }
                digits += fraction
            }
            if let next = peek(), next == UInt8(ascii: "e") || next == UInt8(ascii: "E") || isDigit(next) { return false }
            return digits <= 15
        }

        mutating func digitRun() -> Int {
            let start = index
            while let byte = peek(), isDigit(byte) { index += 1 }
            return index - start
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
