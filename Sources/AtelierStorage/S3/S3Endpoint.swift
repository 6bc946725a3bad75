import Foundation

/// A store's base URL taken apart: scheme, host, port and any base path, and the URLs of a
/// bucket's objects under it in either addressing style.
struct S3Endpoint: Sendable, Equatable {
    let scheme: String
    let host: String
    let port: Int?
    /// Without a trailing `/` (usually empty).
    let basePath: String

    init(_ text: String, setting: String) throws(StorageError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil, components.user == nil else {
            throw .configuration("\(setting) must be an http(s) URL like http://127.0.0.1:8333, got '\(text.prefix(120))'")
        }
        self.scheme = scheme
        self.host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = components.port
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        self.basePath = path
    }

    /// Where one request goes: the URL's beginning (`scheme://host[:port]`), the Host header
    /// (the port only when it is not the scheme's default, as HTTP clients send it), and the
    /// encoded path.
    struct Location: Sendable, Equatable {
        var origin: String
        var hostHeader: String
        var encodedPath: String

        var url: String { origin + encodedPath }
    }

    /// The bucket (`key` nil) or one object of it.
    func location(bucket: String, key: String?, pathStyle: Bool) -> Location {
        let bare = host.contains(":") ? "[\(host)]" : host
        let name = pathStyle ? bare : "\(bucket).\(bare)"
        let defaultPort = scheme == "https" ? 443 : 80
        let hostHeader = port.map { $0 == defaultPort ? name : "\(name):\($0)" } ?? name
        var path = basePath
        if pathStyle { path += "/" + CanonicalRequest.encode(bucket) }
        if let key { path += "/" + CanonicalRequest.encodePath(key) }
        if path.isEmpty { path = "/" }
        return Location(origin: "\(scheme)://\(hostHeader)", hostHeader: hostHeader, encodedPath: path)
    }
}
