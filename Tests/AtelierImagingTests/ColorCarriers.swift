import Foundation

/// Puts an ICC profile into a file the way other software does — JPEG APP2 chunks, a PNG iCCP
/// chunk, a WebP ICCP chunk — written here byte by byte from the formats' specifications, so the
/// readers are tested against carriers they did not write.
enum ColorCarriers {
    /// `jpeg` without its own APP2 ICC chunks, with `icc` in chunks of at most `chunk` bytes
    /// right after SOI (`sequence` overrides the chunks' numbering, for damaged files).
    static func jpeg(_ jpeg: [UInt8], icc: [UInt8], chunk: Int = 65_519, sequence: [(Int, Int)]? = nil) -> [UInt8] {
        var body: [UInt8] = []
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            let segment = Array(jpeg[at..<(at + 2 + length)])
            let isICC = jpeg[at + 1] == 0xE2 && segment.count > 16 && Array(segment[4..<16]) == Array("ICC_PROFILE\0".utf8)
            if !isICC { body += segment }
            at += 2 + length
        }
        body += jpeg[at...]
        let pieces = stride(from: 0, to: icc.count, by: chunk).map { Array(icc[$0..<min(icc.count, $0 + chunk)]) }
        var segments: [UInt8] = []
        for (index, piece) in pieces.enumerated() {
            let (number, count) = sequence?[index] ?? (index + 1, pieces.count)
            let length = 2 + 14 + piece.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8)
                + [UInt8(number), UInt8(count)] + piece
        }
        return [0xFF, 0xD8] + segments + body
    }

    /// `png` without sRGB/iCCP chunks, with an iCCP chunk after IHDR (`compressed` replaces the
    /// zlib stream, for damaged files).
    static func png(_ png: [UInt8], icc: [UInt8], compressed: [UInt8]? = nil) -> [UInt8] {
        var out = Array(png[0..<8])
        var at = 8
        while at + 12 <= png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            let type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
            let whole = Array(png[at..<(at + 12 + length)])
            if type != "sRGB", type != "iCCP" { out += whole }
            if type == "IHDR" { out += chunk("iCCP", Array("Display P3\0".utf8) + [0] + (compressed ?? zlibStored(icc))) }
            at += 12 + length
        }
        return out
    }

    /// A RIFF WebP with its ICCP chunk's payload replaced by `icc` (our encoder writes one).
    static func webp(_ webp: [UInt8], icc: [UInt8]) -> [UInt8] {
        var chunks: [UInt8] = []
        var at = 12
        while at + 8 <= webp.count {
            let length = Int(webp[at + 4]) | Int(webp[at + 5]) << 8 | Int(webp[at + 6]) << 16 | Int(webp[at + 7]) << 24
            let fourcc = String(decoding: webp[at..<(at + 4)], as: UTF8.self)
            let padded = length + (length & 1)
            if fourcc == "ICCP" {
                chunks += Array("ICCP".utf8) + le32(icc.count) + icc + (icc.count & 1 == 1 ? [0] : [])
            } else {
                chunks += webp[at..<min(webp.count, at + 8 + padded)]
            }
            at += 8 + padded
        }
        return Array("RIFF".utf8) + le32(chunks.count + 4) + Array("WEBP".utf8) + chunks
    }

    /// A PNG chunk: length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(data.count) + typed + be32(Int(crc32(typed)))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let n = min(65_535, bytes.count - at)
            let last: UInt8 = at + n >= bytes.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += bytes[at..<(at + n)]
            at += n
        } while at < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + be32(Int(b << 16 | a))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }

    /// The chunk types of a PNG, in order.
    static func pngChunks(_ png: [UInt8]) -> [String] {
        var types: [String] = []
        var at = 8
        while at + 12 <= png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            types.append(String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self))
            at += 12 + length
        }
        return types
    }

    /// The markers of a JPEG before its first scan (APPn as 0xE0…, DQT 0xDB, …).
    static func jpegMarkers(_ jpeg: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
            markers.append(jpeg[at + 1])
            if jpeg[at + 1] == 0xDA { break }
            at += 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
        }
        return markers
    }
}
