import Foundation

/// The URL a client downloads a blob by, without a credential, until it expires: a pre-signed
/// GET on the object store when the store gives one (``S3BlobStore``), else the API's own
/// `/results/KEY?expires=…&signature=…` (``URLSigner``, the local store). Both are issued in
/// the signer's windows: every URL issued within one window is the same string, so a job's JSON
/// (and its ETag) stays stable while it is polled.
package struct DownloadLinks: Sendable {
    package let signer: URLSigner
    package let blobs: any BlobStore

    package init(signer: URLSigner, blobs: any BlobStore) {
        self.signer = signer
        self.blobs = blobs
    }

    /// The URL for `key`; `apiBase` is the API's public base URL (used by the local store only).
    package func url(for key: BlobKey, apiBase: String, now: Date = Date()) -> String {
        direct(for: key, now: now) ?? apiBase + signer.signedPath(for: key, now: now)
    }

    /// The store's own pre-signed URL for `key`, or nil when the store has none.
    package func direct(for key: BlobKey, now: Date = Date()) -> String? {
        blobs.presignedURL(for: key, issued: signer.issued(now: now), lifetime: signer.lifetimeSeconds)
    }
}
