/// `fail` (diagnostic): `{"message": "…", "permanent": false, "succeed_on_attempt": 3}` fails
/// with that message (permanently or not) until attempt `succeed_on_attempt`, if given, which
/// succeeds with `{"succeeded_on_attempt": N}`.
package struct FailJob: JobContract {
    package static let kind = "fail"
    package static let image = ImageRule.optional

    package init() {}

    package struct Payload: Codable, Sendable, Equatable {
        package var message: String?
        package var permanent: Bool?
        package var succeedOnAttempt: Int?
        package var input: BlobInput?

        package init(message: String? = nil, permanent: Bool? = nil, succeedOnAttempt: Int? = nil, input: BlobInput? = nil) {
            (self.message, self.permanent, self.succeedOnAttempt, self.input) = (message, permanent, succeedOnAttempt, input)
        }

        enum CodingKeys: String, CodingKey {
            case message, permanent, input, succeedOnAttempt = "succeed_on_attempt"
        }
    }

    package struct Result: Codable, Sendable, Equatable {
        package var succeededOnAttempt: Int

        package init(succeededOnAttempt: Int) { self.succeededOnAttempt = succeededOnAttempt }

        enum CodingKeys: String, CodingKey { case succeededOnAttempt = "succeeded_on_attempt" }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        func present(_ key: String) -> JSONValue? {
            guard let value = options[key], !value.isNull else { return nil }
            return value
        }
        var payload = Payload(input: input)
        if let value = present("message") {
            guard let message = value.string else { throw JobOptionsError(field: "options.message", message: "options.message must be a string") }
            payload.message = message
        }
        if let value = present("permanent") {
            guard let permanent = value.bool else { throw JobOptionsError(field: "options.permanent", message: "options.permanent must be true or false") }
            payload.permanent = permanent
        }
        if let value = present("succeed_on_attempt") {
            guard let attempt = value.integer else {
                throw JobOptionsError(field: "options.succeed_on_attempt", message: "options.succeed_on_attempt must be a whole number")
            }
            payload.succeedOnAttempt = attempt
        }
        return payload
    }
}
