import AtelierImaging

/// `stylize` (docs/clients.md §3): an image, a `style_id`, optional `params` (a JSON object of
/// `intensity, eyes, nose, mouth, jaw`, each 0…1), optional `warp` (bump and pinch distortions,
/// ``Warp``) and optional `output` (`jpeg`, the default, or `png`). The result is the styled image.
package struct StylizeJob: JobContract {
    package static let kind = "stylize"
    package static let image = ImageRule.required

    package init() {}

    package struct Payload: Codable, Sendable, Equatable {
        package var input: BlobInput
        package var styleID: String
        package var params: Params?
        package var warp: [Warp]?
        package var output: Output?

        package init(input: BlobInput, styleID: String, params: Params? = nil, warp: [Warp]? = nil, output: Output? = nil) {
            (self.input, self.styleID, self.params, self.warp, self.output) = (input, styleID, params, warp, output)
        }

        enum CodingKeys: String, CodingKey {
            case input, params, warp, output, styleID = "style_id"
        }

        /// What the handler does, checked as the API checked it (a payload written some other
        /// way, e.g. `atelier jobs enqueue`, gets the same verdicts).
        package func plan() throws(JobOptionsError) -> Plan {
            let style = try StylizeJob.style(.string(styleID))
            var parameters = StyleParameters()
            if let params {
                for field in StylizeJob.parameterFields {
                    guard let value = params[keyPath: field.sent] else { continue }
                    parameters[keyPath: field.used] = try StylizeJob.parameter(field.name, .number(value))
                }
            }
            var distortions: [Distortion] = []
            if let warp {
                guard warp.count <= Warp.maxCount else { throw Warp.tooMany(warp.count) }
                for (index, item) in warp.enumerated() { distortions.append(try item.distortion(index: index)) }
            }
            return Plan(style: style, parameters: parameters, distortions: distortions, output: output ?? .jpeg)
        }
    }

    /// The tunable parameters a client sent; absent ones keep their defaults (0.5).
    package struct Params: Codable, Sendable, Equatable {
        package var intensity: Double?
        package var eyes: Double?
        package var nose: Double?
        package var mouth: Double?
        package var jaw: Double?

        package init(intensity: Double? = nil, eyes: Double? = nil, nose: Double? = nil, mouth: Double? = nil, jaw: Double? = nil) {
            (self.intensity, self.eyes, self.nose, self.mouth, self.jaw) = (intensity, eyes, nose, mouth, jaw)
        }
    }

    /// Each tunable parameter, in ``StyleParameters/names`` order: its name, where a request's
    /// ``Params`` keep it, and the ``StyleParameters`` field it sets.
    static var parameterFields: [(name: String, sent: WritableKeyPath<Params, Double?>, used: WritableKeyPath<StyleParameters, Double>)] {
        [("intensity", \.intensity, \.intensity), ("eyes", \.eyes, \.eyes), ("nose", \.nose, \.nose),
         ("mouth", \.mouth, \.mouth), ("jaw", \.jaw, \.jaw)]
    }

    package enum Output: String, Codable, Sendable {
        case jpeg, png
    }

    /// A checked stylize job: what the handler renders.
    package struct Plan: Sendable, Equatable {
        package var style: StyleID
        package var parameters: StyleParameters
        /// In the uploaded image's pixels (the handler scales them with the image).
        package var distortions: [Distortion]
        package var output: Output
    }

    package struct Result: Codable, Sendable, Equatable {
        package var resultBlob: String
        package var styleID: String
        package var width: Int
        package var height: Int
        package var contentType: String
        package var bytes: Int
        /// The result's ThumbHash placeholder (about 25 bytes, base64): a client paints it before
        /// the image arrives. Absent from results stored before it was computed.
        package var thumbhash: String?

        package init(resultBlob: String, styleID: String, width: Int, height: Int, contentType: String, bytes: Int,
                     thumbhash: String? = nil) {
            (self.resultBlob, self.styleID, self.width, self.height, self.contentType, self.bytes, self.thumbhash) =
                (resultBlob, styleID, width, height, contentType, bytes, thumbhash)
        }

        enum CodingKeys: String, CodingKey {
            case width, height, bytes, thumbhash
            case resultBlob = "result_blob", styleID = "style_id", contentType = "content_type"
        }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        let input = try requireImage(input)
        let style = try Self.style(options["style_id"])
        var params: Params?
        if let value = options["params"], !value.isNull {
            guard let object = value.object else {
                throw JobOptionsError(field: "params", message: "params must be a JSON object like {\"intensity\": 0.5}")
            }
            var chosen = Params()
            for field in Self.parameterFields {
                guard let raw = object[field.name] else { continue }
                chosen[keyPath: field.sent] = try Self.parameter(field.name, raw)
            }
            params = chosen
        }
        var warp: [Warp]?
        if let value = options["warp"], !value.isNull {
            warp = try Warp.list(value)
        }
        var output: Output?
        if let value = options["output"] {
            guard let name = value.string, let chosen = Output(rawValue: name) else {
                throw JobOptionsError(field: "output", message: "output must be jpeg or png")
            }
            output = chosen
        }
        return Payload(input: input, styleID: style.rawValue, params: params, warp: warp, output: output)
    }

    static let styleList = StyleID.allCases.map(\.rawValue).joined(separator: ", ")

    /// `style_id`: one of the styles.
    static func style(_ value: JSONValue?) throws(JobOptionsError) -> StyleID {
        guard let value else {
            throw JobOptionsError(field: "style_id", message: "style_id is required: one of \(styleList)")
        }
        guard let name = value.string, let style = StyleID(rawValue: name) else {
            throw JobOptionsError(field: "style_id", message: "unknown style_id '\(value.summary.prefix(40))'; one of \(styleList)")
        }
        return style
    }

    /// `params.<name>`: a number within 0…1.
    static func parameter(_ name: String, _ value: JSONValue) throws(JobOptionsError) -> Double {
        guard let number = value.double, number.isFinite, (0...1).contains(number) else {
            throw JobOptionsError(field: "params.\(name)", message: "params.\(name) must be a number within 0…1")
        }
        return number
    }
}
