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
}
