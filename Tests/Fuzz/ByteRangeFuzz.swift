// libFuzzer target for ByteRange.parse (Sources/AtelierAPI/HTTP/ByteRange.swift), compiled alone
// by ./ops/fuzz. The input is the Range header's bytes; each is parsed against several file
// sizes. A trap or a range outside the file is a finding.

@_cdecl("LLVMFuzzerTestOneInput")
public func byteRangeFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let header = String(decoding: bytes, as: UTF8.self)
    for fileSize in [0, 1, 2, 1023, 1 << 40, Int.max - 1, Int.max] {
        switch ByteRange.parse(header, size: fileSize) {
        case .range(let range):
            precondition(range.lowerBound >= 0 && range.lowerBound < range.upperBound && range.upperBound <= fileSize,
                         "\(range) is not a non-empty part of a \(fileSize)-byte file")
        case .whole, .unsatisfiable:
            break
        }
    }
    return 0
}
