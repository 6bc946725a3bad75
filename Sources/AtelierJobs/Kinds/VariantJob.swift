/// `variant`: one photo variant rendered where untrusted pixels are decoded anyway — in a worker,
/// never in the API process, which holds the signing and token secrets. The API enqueues it on
/// a cache miss of a signed `/variants/…` URL (high priority, unique per variant, owner
/// `variants:<the photo's owner>`) and waits briefly for it; it is not a kind clients submit.
///
/// The worker reads `source`, renders the request (``AtelierImaging/PhotoVariant``) and stores
/// it at `target`, beside its source, where every API process serves it from. A source that
/// cannot be rendered fails the job for good with a ``Failure`` as its result, which the API
/// answers every later request of that variant with, at once.
package enum VariantJob {
    package static let kind = "variant"
    /// Ahead of every other kind: a phone's screen waits on it.
    package static let priority = 100
    package static let maxAttempts = 3

    package struct Payload: Codable, Sendable, Equatable {
        /// The photo: a job's `input.*` or `result.*` blob key.
        package var source: String
        /// Where the variant is kept: `jobs/<id>/variants/<hash>.<ext>`.
        package var target: String
        package var width: Int?
        package var height: Int?
        /// `cover`, `contain` or `inside`.
        package var fit: String
        /// The encoding chosen: `jpeg`, `webp` or `avif`.
        package var format: String
        package var quality: Int

        package init(source: String, target: String, width: Int?, height: Int?, fit: String, format: String, quality: Int) {
            (self.source, self.target, self.width, self.height) = (source, target, width, height)
            (self.fit, self.format, self.quality) = (fit, format, quality)
        }
    }

    package struct Result: Codable, Sendable, Equatable {
        package var bytes: Int
        package var contentType: String

        package init(bytes: Int, contentType: String) {
            (self.bytes, self.contentType) = (bytes, contentType)
        }

        enum CodingKeys: String, CodingKey {
            case bytes, contentType = "content_type"
        }
    }

    /// Why a variant cannot be made, as the failed job keeps it: the HTTP status its URL answers
    /// (413 too large, 422 unreadable, 404 gone) and the message for the client.
    package struct Failure: Codable, Sendable, Equatable {
        package var status: Int
        package var message: String
        /// Its source never decoded: true for 413 and 422 (``ResultFields/inputUnreadable``).
        package var inputUnreadable: Bool?

        package init(status: Int, message: String) {
            (self.status, self.message) = (status, message)
            inputUnreadable = status == 413 || status == 422 ? true : nil
        }

        enum CodingKeys: String, CodingKey {
            case status, message, inputUnreadable = "input_unreadable"
        }
    }
}
