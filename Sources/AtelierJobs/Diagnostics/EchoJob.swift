/// `echo` (diagnostic): the job's input image, unchanged, is its result — the whole blob path
/// (upload, input blob, worker, result blob, pre-signed URL) without any image processing.
package struct EchoJob: JobContract {
    package static let kind = "echo"
    package static let image = ImageRule.required

    package init() {}

    package struct Payload: Codable, Sendable, Equatable {
        package var input: BlobInput

        package init(input: BlobInput) { self.input = input }
    }

    package struct Result: Codable, Sendable, Equatable {
        package var resultBlob: String
        package var bytes: Int
        package var contentType: String

        package init(resultBlob: String, bytes: Int, contentType: String) {
            (self.resultBlob, self.bytes, self.contentType) = (resultBlob, bytes, contentType)
        }

        enum CodingKeys: String, CodingKey {
            case bytes, resultBlob = "result_blob", contentType = "content_type"
        }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        Payload(input: try requireImage(input))
    }
}
