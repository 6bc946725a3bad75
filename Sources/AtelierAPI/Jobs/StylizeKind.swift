import AtelierImaging
import Foundation

extension JobKindCatalog {
    /// `stylize` (docs/contracts.md §3): an image, a `style_id`, optional `params` (a JSON object of
    /// `intensity, eyes, nose, mouth, jaw`, each 0…1) and optional `output` (`jpeg`, `png`).
    /// A request with a `style_id` and no `kind` is a stylize request.
    public static let stylize = JobKind(name: "stylize", image: .required) { options in
        guard let value = options["style_id"] else {
            throw APIError.validation("style_id is required: one of \(StyleID.allCases.map(\.rawValue).joined(separator: ", "))", field: "style_id")
        }
        guard let name = value as? String, let style = StyleID(rawValue: name) else {
            throw APIError.validation("unknown style_id '\(String(describing: value).prefix(40))'; one of \(StyleID.allCases.map(\.rawValue).joined(separator: ", "))",
                                      field: "style_id")
        }
        guard style.isAvailable else {
            throw APIError.validation("style '\(style.rawValue)' is not available in this build yet; available: \(StyleID.available.map(\.rawValue).joined(separator: ", "))",
                                      field: "style_id")
        }
        if let params = options["params"], !(params is NSNull) {
            guard let object = params as? [String: Any] else {
                throw APIError.validation("params must be a JSON object like {\"intensity\": 0.5}", field: "params")
            }
            for name in StyleParameters.names {
                guard let raw = object[name] else { continue }
                guard let number = raw as? NSNumber, number.doubleValue.isFinite,
                      (0...1).contains(number.doubleValue) else {
                    throw APIError.validation("params.\(name) must be a number within 0…1", field: "params.\(name)")
                }
            }
        }
        if let warp = options["warp"], !(warp is NSNull) {
            do {
                _ = try Distortion.list(fromJSON: warp)
            } catch let error as DistortionListError {
                throw APIError.validation(error.message, field: error.field)
            }
        }
        if let output = options["output"] {
            guard let text = output as? String, ["jpeg", "png"].contains(text) else {
                throw APIError.validation("output must be jpeg or png", field: "output")
            }
        }
    }
}
