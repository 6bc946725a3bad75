/// One job kind's contract between the API that accepts it and the handler that runs it: the
/// kind's name, whether a request carries an image, and how a request's options become the
/// typed ``Payload`` that is stored with the job and decoded by the handler. Each kind also
/// defines its `Result`, the JSON its handler leaves (read back by views and the apps' routes).
///
/// Adding a kind: a file here with its `Payload`, `Result` and checks; a `JobHandler` in
/// AtelierHandlers that decodes the payload; the kind in the API's catalog.
package protocol JobContract: Sendable {
    associatedtype Payload: Codable & Sendable

    /// The kind's name, e.g. `stylize`.
    static var kind: String { get }
    /// Whether a request must, may or must not bring an image.
    static var image: ImageRule { get }

    /// A request's options checked and turned into the payload the job runs with; `input` is the
    /// uploaded image (already checked and about to be stored), if the request brought one.
    func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload
}

extension JobContract {
    /// `input`, for a kind whose requests must bring an image; without one, the error "a(n) <kind>
    /// job needs an image". The intake refuses such a request first: this keeps a payload made
    /// any other way from going without its image.
    func requireImage(_ input: BlobInput?) throws(JobOptionsError) -> BlobInput {
        guard let input else {
            let article = Self.kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            throw JobOptionsError(field: "image", message: "\(article) \(Self.kind) job needs an image")
        }
        return input
    }
}

/// Whether a job kind's requests bring an image.
package enum ImageRule: Sendable {
    case required, optional, none
}
