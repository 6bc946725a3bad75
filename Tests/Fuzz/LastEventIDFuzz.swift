// libFuzzer target for LastEventID.parse (Sources/AtelierAPI/HTTP/LastEventID.swift), compiled
// alone by ./ops/fuzz. The input is the header's bytes. A trap, a negative id, a part outside
// 1…3 (or any part when parts are not allowed), or an id that does not read back the same is
// a finding.

@_cdecl("LLVMFuzzerTestOneInput")
public func lastEventIDFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let header = String(decoding: bytes, as: UTF8.self)
    for allowParts in [false, true] {
        guard let id = try? LastEventID.parse(header, allowParts: allowParts) else { continue }
        precondition(id.eventID >= 0, "negative id \(id.eventID)")
        if let part = id.part {
            precondition(allowParts && (1...3).contains(part), "part \(part) (parts allowed: \(allowParts))")
        }
        let written = id.part.map { "\(id.eventID).\($0)" } ?? "\(id.eventID)"
        precondition((try? LastEventID.parse(written, allowParts: allowParts)) == id, "\(written) does not read back")
    }
    return 0
}
