import AtelierStorage
import AtelierWorker
import Foundation

/// The uploaded image a job's payload names (`input.blob`), read from the blob store: a bad key
/// or a missing blob is a permanent failure (retrying cannot bring it back); a store that
/// cannot be read right now is a transient one.
enum JobInput {
    static func read(_ path: String, from blobs: any BlobStore) async throws -> [UInt8] {
        let key: BlobKey
        do { key = try BlobKey(path) } catch { throw JobFailure.permanent("the input blob key is not valid") }
        let read: Swift.Result<Data, StorageError>
        do { read = .success(try await blobs.read(key)) } catch { read = .failure(error) }
        switch read {
        case .success(let data): return [UInt8](data)
        case .failure(.notFound): throw JobFailure.permanent("the input image is gone")
        case .failure(let error): throw error
        }
    }
}
