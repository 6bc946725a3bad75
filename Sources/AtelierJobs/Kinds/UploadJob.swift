/// `upload`: an image kept for later work without analysis (Mondrian's `auto_analyze=false`);
/// the handler checks it is stored and readable. `source_name` is the client's file name as
/// Mondrian's routes name the image (a non-string is ignored).
package struct UploadJob: JobContract {
    package static let kind = "upload"
    package static let image = ImageRule.required

    package init() {}

    package struct Payload: Codable, Sendable, Equatable {
        package var input: BlobInput
        package var sourceName: String?

        package init(input: BlobInput, sourceName: String? = nil) {
            (self.input, self.sourceName) = (input, sourceName)
        }

        enum CodingKeys: String, CodingKey {
            case input, sourceName = "source_name"
        }
    }

    /// What the stored image is, read back from the store.
    package struct Result: Codable, Sendable, Equatable {
        package var format: String
        package var width: Int
        package var height: Int
        package var bytes: Int
        /// The photo's ThumbHash placeholder (about 25 bytes, base64), for the job view's
        /// `thumbnail_url`: a client paints it before the image arrives.
        package var thumbhash: String?

        package init(format: String, width: Int, height: Int, bytes: Int, thumbhash: String? = nil) {
            (self.format, self.width, self.height, self.bytes, self.thumbhash) = (format, width, height, bytes, thumbhash)
        }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        let input = try requireImage(input)
        return Payload(input: input, sourceName: options["source_name"]?.string)
    }
}
