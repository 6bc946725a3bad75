/// The image uploaded with a job, as its payload names it under `input`:
/// `{"blob": "jobs/<id>/input.jpg", "format": "jpeg", "content_type": "image/jpeg", "bytes": 123456}`.
/// The API writes it (the client may not: `input` is a reserved option); handlers read the image
/// from `blob`; per-owner quotas add up `bytes`.
package struct BlobInput: Codable, Sendable, Equatable {
    /// The blob key of the stored image.
    package var blob: String
    /// The format sniffed from the bytes: `jpeg`, `png`, `heic` or `webp`.
    package var format: String
    package var contentType: String
    package var bytes: Int

    package init(blob: String, format: String, contentType: String, bytes: Int) {
        (self.blob, self.format, self.contentType, self.bytes) = (blob, format, contentType, bytes)
    }

    enum CodingKeys: String, CodingKey {
        case blob, format, bytes, contentType = "content_type"
    }

    /// The input a stored payload of any kind names, or nil when it names none (a text `index`
    /// job, a `noop` without an image) or is not a payload.
    package static func of(payload json: String) -> BlobInput? {
        struct Holder: Decodable { var input: BlobInput? }
        return (try? ContractJSON.decode(Holder.self, from: json))?.input
    }
}
