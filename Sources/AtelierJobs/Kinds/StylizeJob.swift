import AtelierImaging

/// `stylize` (docs/clients.md §3): an image, a `style_id`, optional `params` (a JSON object of
/// `intensity, eyes, nose, mouth, jaw`, each 0…1), optional `warp` (bump and pinch distortions,
/// ``Warp``) and optional `output` (`jpeg`, the default, or `png`). The result is the styled image.
public struct StylizeJob: JobContract {
    public static let kind = "stylize"
    public static let image = ImageRule.required

    public init() {}

    public struct Payload: Codable, Sendable, Equatable {
        public var input: BlobInput
        public var styleID: String
        public var params: Params?
        public var warp: [Warp]?
        public var output: Output?

        public init(input: BlobInput, styleID: String, params: Params? = nil, warp: [Warp]? = nil, output: Output? = nil) {
            (self.input, self.styleID, self.params, self.warp, self.output) = (input, styleID, params, warp, output)
        }

        enum CodingKeys: String, CodingKey {
            case input, params, warp, output, styleID = "style_id"
        }

        /// What the handler does, checked as the API checked it (a payload written some other
        /// way, e.g. `atelier jobs enqueue`, gets the same verdicts).
        public func plan() throws(JobOptionsError) -> Plan {
            let style = try StylizeJob.style(.string(styleID))
            var parameters = StyleParameters()
            if let params {
                for (name, value) in params.values {
                    guard let value else { continue }
                    parameters[name] = try StylizeJob.parameter(name, .number(value))
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
    public struct Params: Codable, Sendable, Equatable {
        public var intensity: Double?
        public var eyes: Double?
        public var nose: Double?
        public var mouth: Double?
        public var jaw: Double?

        public init(intensity: Double? = nil, eyes: Double? = nil, nose: Double? = nil, mouth: Double? = nil, jaw: Double? = nil) {
            (self.intensity, self.eyes, self.nose, self.mouth, self.jaw) = (intensity, eyes, nose, mouth, jaw)
        }

        /// Name and value, in ``StyleParameters/names`` order.
        var values: [(String, Double?)] {
            [("intensity", intensity), ("eyes", eyes), ("nose", nose), ("mouth", mouth), ("jaw", jaw)]
        }

        subscript(name: String) -> Double? {
            get { values.first { $0.0 == name }?.1 ?? nil }
            set {
                switch name {
                case "intensity": intensity = newValue
                case "eyes": eyes = newValue
                case "nose": nose = newValue
                case "mouth": mouth = newValue
                case "jaw": jaw = newValue
                default: break
                }
            }
        }
    }

    public enum Output: String, Codable, Sendable {
        case jpeg, png
    }

    /// A checked stylize job: what the handler renders.
    public struct Plan: Sendable, Equatable {
        public var style: StyleID
        public var parameters: StyleParameters
        /// In the uploaded image's pixels (the handler scales them with the image).
        public var distortions: [Distortion]
        public var output: Output
    }

    public struct Result: Codable, Sendable, Equatable {
        public var resultBlob: String
        public var styleID: String
        public var width: Int
        public var height: Int
        public var contentType: String
        public var bytes: Int

        public init(resultBlob: String, styleID: String, width: Int, height: Int, contentType: String, bytes: Int) {
            (self.resultBlob, self.styleID, self.width, self.height, self.contentType, self.bytes) =
                (resultBlob, styleID, width, height, contentType, bytes)
        }

        enum CodingKeys: String, CodingKey {
            case width, height, bytes
            case resultBlob = "result_blob", styleID = "style_id", contentType = "content_type"
        }
    }

    public func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        guard let input else { throw JobOptionsError(field: "image", message: "a stylize job needs an image") }
        let style = try Self.style(options["style_id"])
        var params: Params?
        if let value = options["params"], !value.isNull {
            guard let object = value.object else {
                throw JobOptionsError(field: "params", message: "params must be a JSON object like {\"intensity\": 0.5}")
            }
            var chosen = Params()
            for name in StyleParameters.names {
                guard let raw = object[name] else { continue }
                chosen[name] = try Self.parameter(name, raw)
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

    /// `style_id`: one of the styles, and one this build renders.
    static func style(_ value: JSONValue?) throws(JobOptionsError) -> StyleID {
        guard let value else {
            throw JobOptionsError(field: "style_id", message: "style_id is required: one of \(styleList)")
        }
        guard let name = value.string, let style = StyleID(rawValue: name) else {
            throw JobOptionsError(field: "style_id", message: "unknown style_id '\(value.summary.prefix(40))'; one of \(styleList)")
        }
        guard style.isAvailable else {
            throw JobOptionsError(field: "style_id", message: "style '\(style.rawValue)' is not available in this build yet; available: "
                                      + StyleID.available.map(\.rawValue).joined(separator: ", "))
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

extension StyleParameters {
    /// The parameter called `name` (one of ``names``).
    subscript(name: String) -> Double {
        get {
            switch name {
            case "eyes": eyes
            case "nose": nose
            case "mouth": mouth
            case "jaw": jaw
            default: intensity
            }
        }
        set {
            switch name {
            case "intensity": intensity = newValue
            case "eyes": eyes = newValue
            case "nose": nose = newValue
            case "mouth": mouth = newValue
            case "jaw": jaw = newValue
            default: break
            }
        }
    }
}
