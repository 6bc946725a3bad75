// libFuzzer target for ExifOrientation.read (Sources/AtelierImaging/Codecs/ExifOrientation.swift):
// ./ops/fuzz compiles the two files alone with `swiftc -sanitize=fuzzer,address -parse-as-library`.
// A trap (index out of range, overflow) or a sanitizer report is a finding; the reader must
// answer an orientation for any bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func exifOrientationFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let orientation = ExifOrientation.read(jpeg: bytes)
    precondition((1...8).contains(orientation.rawValue))
    // Inputs without the SOI marker reach the segment walk too.
    if bytes.count < 2 || bytes[0] != 0xFF || bytes[1] != 0xD8 {
        _ = ExifOrientation.read(jpeg: [0xFF, 0xD8] + bytes)
    }
    return 0
}
