import AtelierImaging

/// What a variant URL asks for, as its query spells it: `w` and `h` (pixels, 1…4096, at least
/// one), `fit` (`cover`, `contain`, `inside`; default `cover`), `format` (`auto`, `jpeg`, `webp`,
/// `avif`; default `auto`) and `q` (1…100; default 80). The signature covers the canonical spelling
/// (``canonical``), so a client can change none of them.
package struct VariantParameters: Sendable, Equatable {
    package enum Format: String, Sendable, CaseIterable {
        /// AVIF when the request's `Accept` names `image/avif`, else WebP when it names
        /// `image/webp`, else JPEG (the answer varies by `Accept`).
        case auto, jpeg, webp, avif
    }

    package var width: Int?
    package var height: Int?
    package var fit: VariantFit
    package var format: Format
    package var quality: Int

    package static let maxSide = 4096
    package static let defaultQuality = 80

    package init(width: Int?, height: Int?, fit: VariantFit = .cover, format: Format = .auto, quality: Int = defaultQuality) {
        (self.width, self.height, self.fit, self.format, self.quality) = (width, height, fit, format, quality)
    }

    /// The parameters of a query; a 400 naming the field for a value out of range.
    package init(query: [String: String]) throws(APIError) {
        func side(_ name: String) throws(APIError) -> Int? {
            guard let text = query[name] else { return nil }
            guard let value = Int(text), (1...Self.maxSide).contains(value) else {
                throw APIError.validation("\(name) must be a whole number of pixels from 1 to \(Self.maxSide)", field: name)
            }
            return value
        }
        let (width, height) = (try side("w"), try side("h"))
        guard width != nil || height != nil else { throw APIError.validation("a variant needs w, h or both", field: "w") }
        var fit = VariantFit.cover
        if let text = query["fit"] {
            guard let chosen = VariantFit(rawValue: text) else {
                throw APIError.validation("fit must be cover, contain or inside", field: "fit")
            }
            fit = chosen
        }
        var format = Format.auto
        if let text = query["format"] {
            guard let chosen = Format(rawValue: text) else { throw APIError.validation("format must be auto, jpeg, webp or avif", field: "format") }
            format = chosen
        }
        var quality = Self.defaultQuality
        if let text = query["q"] {
            guard let value = Int(text), (1...100).contains(value) else { throw APIError.validation("q must be a whole number from 1 to 100", field: "q") }
            quality = value
        }
        self.init(width: width, height: height, fit: fit, format: format, quality: quality)
    }

    /// The one spelling that is signed: `w=…&h=…&fit=…&format=…&q=…`, a missing side left out.
    package var canonical: String {
        var parts: [String] = []
        if let width { parts.append("w=\(width)") }
        if let height { parts.append("h=\(height)") }
        parts += ["fit=\(fit.rawValue)", "format=\(format.rawValue)", "q=\(quality)"]
        return parts.joined(separator: "&")
    }

    /// The encoding to answer with, given the request's `Accept` header.
    package func encoding(accept: String?) -> VariantFormat {
        switch format {
        case .jpeg: return .jpeg
        case .webp: return .webp
        case .avif: return .avif
        case .auto:
            let named = Self.acceptedTypes(accept ?? "")
            return named.contains("image/avif") ? .avif : (named.contains("image/webp") ? .webp : .jpeg)
        }
    }

    /// The media types an `Accept` header names and does not refuse (`q=0` refuses), lower-cased:
    /// `image/avif,image/webp;q=0.8,image/png;q=0` → avif and webp. One pass; a type is named
    /// exactly (`image/*` names neither AVIF nor WebP: a client that can show them says so).
    static func acceptedTypes(_ accept: String) -> Set<String> {
        var types: Set<String> = []
        for range in accept.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = range.split(separator: ";")
            guard let type = parts.first.map({ HeaderText.trimmed($0).lowercased() }), !type.isEmpty else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, HeaderText.trimmed(pair[0]).lowercased() == "q" else { return false }
                return Double(HeaderText.trimmed(pair[1])) == 0
            }
            if !refused { types.insert(type) }
        }
        return types
    }

    /// The rendering request for `encoding`.
    package func request(_ encoding: VariantFormat) -> VariantRequest {
        VariantRequest(width: width, height: height, fit: fit, format: encoding, quality: quality)
    }

    /// The thumbnail job views link to: a 512 px square, cropped around the subject.
    package static let thumbnail = VariantParameters(width: 512, height: 512)
}
