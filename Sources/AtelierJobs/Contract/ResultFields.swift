/// The fields of a job's result that are read without knowing its kind: the blob it names
/// (`result_blob` — the jobs API hands it out as a signed `result_url`) and the caption it
/// carries (`caption` — an `index` job of another job's image reuses it). A field that is
/// absent or not a string is nil.
public struct ResultFields: Decodable, Sendable, Equatable {
    public var resultBlob: String?
    public var caption: String?

    enum CodingKeys: String, CodingKey {
        case caption, resultBlob = "result_blob"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        resultBlob = try? c.decodeIfPresent(String.self, forKey: .resultBlob)
        caption = try? c.decodeIfPresent(String.self, forKey: .caption)
    }

    /// The fields of a stored result; nil when there is none or it is not a JSON object.
    public static func of(result json: String?) -> ResultFields? {
        json.flatMap { try? ContractJSON.decode(ResultFields.self, from: $0) }
    }
}
