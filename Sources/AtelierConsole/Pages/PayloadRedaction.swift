import Foundation

/// A job's payload or result as the console shows it: pretty JSON with secrets taken out. A key
/// that names a secret (password, token, secret, api key, authorization, credential, signature)
/// has its value replaced; a URL keeps its address but not the values of signing query
/// parameters (a pre-signed URL would otherwise open the file for anyone reading the page);
/// long strings (inline images) are shortened.
enum PayloadRedaction {
    static let redacted = "[redacted]"
    static let longString = 500

    static func pretty(_ json: String?) -> String? {
        guard let json else { return nil }
        guard let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) else {
            return json.count > longString ? String(json.prefix(longString)) + "… (\(json.count) characters)" : json
        }
        let clean = redact(value)
        guard let data = try? JSONSerialization.data(withJSONObject: clean, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func redact(_ value: Any, key: String? = nil) -> Any {
        if let key, isSecret(key), !(value is [String: Any]), !(value is [Any]) { return redacted }
        switch value {
        case let object as [String: Any]:
            return object.reduce(into: [String: Any]()) { out, entry in out[entry.key] = redact(entry.value, key: entry.key) }
        case let array as [Any]:
            return array.map { redact($0, key: key) }
        case let text as String:
            return redactURL(text) ?? (text.count > longString ? String(text.prefix(80)) + "… (\(text.count) characters)" : text)
        default:
            return value
        }
    }

    static func isSecret(_ key: String) -> Bool {
        let name = key.lowercased().replacingOccurrences(of: "-", with: "_")
        return ["password", "secret", "token", "api_key", "apikey", "authorization", "credential", "signature", "private_key", "cookie"]
            .contains { name.contains($0) }
    }

    private static let signingParameters: Set<String> = [
        "x-amz-signature", "x-amz-credential", "x-amz-security-token", "signature", "sig", "token", "key", "access_token",
    ]

    /// The URL with its signing parameters' values replaced; nil when `text` is not an http(s) URL with a query.
    static func redactURL(_ text: String) -> String? {
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), var components = URLComponents(string: text),
              let items = components.queryItems, !items.isEmpty else { return nil }
        components.queryItems = items.map {
            signingParameters.contains($0.name.lowercased()) ? URLQueryItem(name: $0.name, value: redacted) : $0
        }
        return components.string
    }
}
