import Foundation

/// Job ids are UUIDv7: time-ordered, so the primary key index grows at its right edge.
public enum JobID {
    /// A new UUIDv7 (RFC 9562): 48-bit Unix milliseconds, version 7, 74 random bits.
    public static func make(now: Date = Date()) -> UUID {
        let millis = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        let random2 = generator.next() as UInt64
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        bytes.0 = UInt8(truncatingIfNeeded: millis >> 40)
        bytes.1 = UInt8(truncatingIfNeeded: millis >> 32)
        bytes.2 = UInt8(truncatingIfNeeded: millis >> 24)
        bytes.3 = UInt8(truncatingIfNeeded: millis >> 16)
        bytes.4 = UInt8(truncatingIfNeeded: millis >> 8)
        bytes.5 = UInt8(truncatingIfNeeded: millis)
        bytes.6 = 0x70 | UInt8(truncatingIfNeeded: random >> 60)       // version 7
        bytes.7 = UInt8(truncatingIfNeeded: random >> 52)
        bytes.8 = 0x80 | UInt8(truncatingIfNeeded: random2 >> 58)      // RFC 4122 variant
        bytes.9 = UInt8(truncatingIfNeeded: random2 >> 50)
        bytes.10 = UInt8(truncatingIfNeeded: random2 >> 42)
        bytes.11 = UInt8(truncatingIfNeeded: random2 >> 34)
        bytes.12 = UInt8(truncatingIfNeeded: random2 >> 26)
        bytes.13 = UInt8(truncatingIfNeeded: random2 >> 18)
        bytes.14 = UInt8(truncatingIfNeeded: random2 >> 10)
        bytes.15 = UInt8(truncatingIfNeeded: random2 >> 2)
        return UUID(uuid: bytes)
    }

    /// Parses a job id given by a person or a URL; anything else is "not found", never a crash.
    public static func parse(_ text: String) throws(QueueError) -> UUID {
        guard let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
            throw .jobNotFound("no job with id '\(text)' (job ids look like 0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60)")
        }
        return id
    }

    /// The UUID written as `text` (8-4-4-4-12 hex digits, either case), or nil: what
    /// `UUID(uuidString:)` accepts, without its `sscanf` (a visible cost on the poll path).
    public static func uuid(_ text: some StringProtocol) -> UUID? {
        var high: UInt64 = 0, low: UInt64 = 0
        var index = 0, nibbles = 0
        for char in text.utf8 {
            defer { index += 1 }
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard char == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt64
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(char - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(char - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt64(char - UInt8(ascii: "A") + 10)
            default: return nil
            }
            guard nibbles < 32 else { return nil }
            if nibbles < 16 { high = high << 4 | value } else { low = low << 4 | value }
            nibbles += 1
        }
        guard index == 36, nibbles == 32 else { return nil }
        func byte(_ word: UInt64, _ n: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * n)) }
        return UUID(uuid: (byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5),
                           byte(high, 6), byte(high, 7), byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3),
                           byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)))
    }
}
