import AtelierDatabase
import AtelierStorage
import Foundation
import Logging

extension Settings {
    enum BlobStoreKind: String {
        case local, s3
    }

    /// `ATELIER_BLOB_STORE`: `local` (default; files under `ATELIER_DATA_DIR/blobs`, shared by
    /// the processes of one machine) or `s3` (an S3-compatible object store, `ATELIER_S3_*`, for
    /// processes on several machines).
    func blobStoreKind() throws -> BlobStoreKind {
        let text = string("ATELIER_BLOB_STORE") ?? "local"
        guard let kind = BlobStoreKind(rawValue: text.lowercased()) else {
            throw ConfigurationError("ATELIER_BLOB_STORE=\(text) is not a blob store: use local or s3")
        }
        return kind
    }

    /// The blob store `ATELIER_BLOB_STORE` names, checked; a bad setting is a ConfigurationError naming it.
    func blobStore() throws -> any BlobStore {
        do {
            switch try blobStoreKind() {
            case .local:
                return try LocalBlobStore(root: dataDirectory.appendingPathComponent("blobs", isDirectory: true))
            case .s3:
                return try S3BlobStore(configuration: try s3Configuration(), logger: Logger(label: "atelier.storage"))
            }
        } catch let error as StorageError {
            throw ConfigurationError(error.message)
        }
    }

    /// `ATELIER_S3_ENDPOINT` and `ATELIER_S3_BUCKET` (required), `ATELIER_S3_REGION` (us-east-1),
    /// `ATELIER_S3_ACCESS_KEY_ID` and `ATELIER_S3_SECRET_ACCESS_KEY` (required),
    /// `ATELIER_S3_PATH_STYLE` (true), `ATELIER_S3_PUBLIC_ENDPOINT` (the endpoint clients reach,
    /// when it differs).
    func s3Configuration() throws -> S3Configuration {
        func required(_ name: String) throws -> String {
            guard let value = string(name) else {
                throw ConfigurationError("\(name) is not set: ATELIER_BLOB_STORE=s3 needs ATELIER_S3_ENDPOINT, ATELIER_S3_BUCKET, "
                    + "ATELIER_S3_ACCESS_KEY_ID and ATELIER_S3_SECRET_ACCESS_KEY (`ATELIER_BLOB_STORE=s3 ./ops/run` starts SeaweedFS and sets them)")
            }
            return value
        }
        return S3Configuration(
            endpoint: try required("ATELIER_S3_ENDPOINT"), bucket: try required("ATELIER_S3_BUCKET"),
            region: string("ATELIER_S3_REGION") ?? "us-east-1",
            credentials: SigV4Credentials(accessKeyID: try required("ATELIER_S3_ACCESS_KEY_ID"),
                                          secretAccessKey: try required("ATELIER_S3_SECRET_ACCESS_KEY")),
            pathStyle: try bool("ATELIER_S3_PATH_STYLE") ?? true,
            publicEndpoint: string("ATELIER_S3_PUBLIC_ENDPOINT"))
    }
}
