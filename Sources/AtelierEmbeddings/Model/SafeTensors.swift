import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `.safetensors` file: an 8-byte little-endian header length, a JSON header naming each
/// tensor's dtype, shape and byte range, then the raw little-endian data. The file is memory
/// mapped (mmap, read-only), never copied; tensors are views into it, checked against the
/// file's size, valid as long as this object lives.
package final class SafeTensors: @unchecked Sendable {
    package struct Tensor {
        package let shape: [Int]
        /// The tensor's floats, row-major, inside the mapped file.
        package let values: UnsafeBufferPointer<Float>
    }

    private let base: UnsafeRawPointer
    private let size: Int
    private let entries: [String: (dtype: String, shape: [Int], start: Int, end: Int)]

    package init(contentsOf url: URL) throws(EmbeddingError) {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw .missingFile("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 8 else {
            throw .invalidModel("\(url.lastPathComponent) is too short to be a safetensors file")
        }
        let size = Int(status.st_size)
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED else {
            throw .missingFile("cannot map \(url.path): \(String(cString: strerror(errno)))")
        }
        let base = UnsafeRawPointer(mapping)
        do {
            entries = try Self.readHeader(base, size: size, name: url.lastPathComponent)
        } catch {
            munmap(mapping, size)
            throw error
        }
        (self.base, self.size) = (base, size)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    private static func readHeader(_ base: UnsafeRawPointer, size: Int, name file: String) throws(EmbeddingError)
        -> [String: (dtype: String, shape: [Int], start: Int, end: Int)] {
        let headerLength = Int(UInt64(littleEndian: base.loadUnaligned(as: UInt64.self)))
        guard headerLength > 1, headerLength <= 100_000_000, 8 + headerLength <= size else {
            throw .invalidModel("\(file) has an impossible header length \(headerLength)")
        }
        let json = Data(bytes: base + 8, count: headerLength)
        guard let header = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw .invalidModel("\(file) has an unreadable JSON header")
        }
        let dataStart = 8 + headerLength, dataSize = size - dataStart
        var entries: [String: (dtype: String, shape: [Int], start: Int, end: Int)] = [:]
        for (name, value) in header where name != "__metadata__" {
            guard let info = value as? [String: Any], let dtype = info["dtype"] as? String,
                  let shape = (info["shape"] as? [NSNumber])?.map(\.intValue),
                  let offsets = (info["data_offsets"] as? [NSNumber])?.map(\.intValue), offsets.count == 2,
                  offsets[0] >= 0, offsets[0] <= offsets[1], offsets[1] <= dataSize else {
                throw .invalidModel("\(file): tensor \(name) has a bad header entry")
            }
            entries[name] = (dtype, shape, dataStart + offsets[0], dataStart + offsets[1])
        }
        return entries
    }

    package var names: [String] { Array(entries.keys) }

    /// The F32 tensor `name`, checked to have `shape`.
    package func tensor(_ name: String, shape: [Int]) throws(EmbeddingError) -> Tensor {
        guard let entry = entries[name] else { throw .invalidModel("the model has no tensor \(name)") }
        guard entry.dtype == "F32" else { throw .invalidModel("\(name) is \(entry.dtype); only F32 is supported") }
        guard entry.shape == shape else { throw .invalidModel("\(name) has shape \(entry.shape), expected \(shape)") }
        let count = shape.reduce(1, *)
        guard entry.end - entry.start == count * 4, entry.start % 4 == 0 else {
            throw .invalidModel("\(name): \(entry.end - entry.start) bytes for \(count) floats")
        }
        let pointer = (base + entry.start).assumingMemoryBound(to: Float.self)
        return Tensor(shape: shape, values: UnsafeBufferPointer(start: pointer, count: count))
    }
}
