import CAtelierKernels

/// Float samples (0…255 scale) to bytes, rounded and clamped, and bytes to floats — the first
/// and last steps of most kernels, done by the vectorised loops of `CAtelierKernels`. (A
/// scalar `UInt8(Float)` conversion in Swift checks its range on every sample and keeps the
/// loop scalar; Swift's SIMD type conversions are slower still.)
enum ByteConversion {
    @inline(__always)
    static func store(_ source: UnsafePointer<Float>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        ak_floats_to_bytes(source, target, count)
    }

    @inline(__always)
    static func load(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<Float>, count: Int) {
        ak_bytes_to_floats(source, target, count)
    }
}
