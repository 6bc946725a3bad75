/// The fields of a job's result that are read without knowing its kind: the blob it names
/// (`result_blob` — the jobs API hands it out as a signed `result_url`) and the caption it
/// carries (`caption` — an `index` job of another job's image reuses it), and its photo's
/// placeholder (`thumbhash`); and of a failed job, whether the photo it was given never decoded
/// (`input_unreadable`). A field that is absent or of another type is nil (false).
package struct ResultFields: Decodable, Sendable, Equatable {
    package var resultBlob: String?
    package var caption: String?
    /// The ThumbHash placeholder of the photo the job view's `thumbnail_url` shows (base64).
    package var thumbhash: String?
    /// Set by a handler whose input photo could not be decoded (``unreadableInput``): the job
    /// failed, and no thumbnail of that photo is offered.
    package var inputUnreadable: Bool

    enum CodingKeys: String, CodingKey {
        case caption, thumbhash, resultBlob = "result_blob", inputUnreadable = "input_unreadable"
    }

    /// The result a handler fails with when the photo it was given does not decode.
    package static let unreadableInput = #"{"input_unreadable": true}"#

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        resultBlob = try? c.decodeIfPresent(String.self, forKey: .resultBlob)
        caption = try? c.decodeIfPresent(String.self, forKey: .caption)
        thumbhash = try? c.decodeIfPresent(String.self, forKey: .thumbhash)
        inputUnreadable = (try? c.decodeIfPresent(Bool.self, forKey: .inputUnreadable)) == true
    }

    /// The fields of a stored result; nil when there is none or it is not a JSON object.
    package static func of(result json: String?) -> ResultFields? {
        json.flatMap { try? ContractJSON.decode(ResultFields.self, from: $0) }
    }
}
