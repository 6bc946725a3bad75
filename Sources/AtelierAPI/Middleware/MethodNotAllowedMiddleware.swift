import HTTPTypes
import Hummingbird

/// A request for a path that is served, with a method it is not served with, is `405 Method Not
/// Allowed` with an `Allow` header naming the methods the path takes (RFC 9110 §15.5.6) — not
/// the router's 404, which would say the resource does not exist. `OPTIONS` on such a path gets
/// the same answer: the API does no CORS, and `Allow` tells what the resource supports.
///
/// Installed last on the router, so it wraps only the router's not-found responder: a routed
/// request never passes through it. `Allow` lists the methods ``OpenAPIDocument`` describes for
/// the path (a test holds the document to the routes), so a method registered only to refuse —
/// the caption API's METHOD_001 routes — is not advertised. An app's path may keep its own
/// error shape (``APIApp/ownMethodNotAllowed``: the caption app's METHOD_001, docs/clients.md §1).
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    /// One served route's path, split into segments: literal text, `{name}` or `:name` (one
    /// segment), or `**` (the rest of the path).
    struct Pattern: Sendable {
        enum Segment: Sendable, Equatable { case literal(String), parameter, rest }
        var segments: [Segment]
        /// The path as the document writes it (`/v1/jobs/{id}`).
        var template: String

        init(_ description: String) {
            var segments: [Segment] = []
            var template = ""
            for piece in description.split(separator: "/") {
                if piece == "**" {
                    segments.append(.rest)
                    template += "/{key}"
                } else if piece.hasPrefix("{"), piece.hasSuffix("}") {
                    segments.append(.parameter)
                    template += "/\(piece)"
                } else if piece.hasPrefix(":") || piece == "*" {
                    segments.append(.parameter)
                    template += piece == "*" ? "/*" : "/{\(piece.dropFirst())}"
                } else {
                    segments.append(.literal(String(piece)))
                    template += "/\(piece)"
                }
            }
            self.segments = segments
            self.template = template.isEmpty ? "/" : template
        }

        /// How specifically this pattern matches `path` (higher is more specific, literal
        /// segments first, as the router prefers them), or nil when it does not match.
        func match(_ path: [Substring]) -> [Int]? {
            var score: [Int] = []
            for (index, segment) in segments.enumerated() {
                switch segment {
                case .rest:
                    return index < path.count ? score + [0] : nil
                case .parameter:
                    guard index < path.count else { return nil }
                    score.append(1)
                case .literal(let text):
                    guard index < path.count, path[index] == text else { return nil }
                    score.append(2)
                }
            }
            return segments.count == path.count ? score : nil
        }
    }

    let patterns: [Pattern]
    let documented: [String: [String]]
    let routed: [String: [String]]
    /// Path template → that path's own answer, given the `Allow` value.
    let ownAnswers: [String: @Sendable (_ allow: String) -> Response]

    /// `routes`: every served route's path (as the router describes it) and method.
    init(routes: [(path: String, method: String)], documented: [String: [String]] = OpenAPIOperations.byPath,
         ownAnswers: [String: @Sendable (_ allow: String) -> Response] = [:]) {
        self.ownAnswers = ownAnswers
        var routed: [String: [String]] = [:]
        var patterns: [String: Pattern] = [:]
        for route in routes {
            let pattern = Pattern(route.path)
            patterns[pattern.template] = pattern
            routed[pattern.template, default: []].append(route.method.uppercased())
        }
        self.patterns = Array(patterns.values)
        self.routed = routed
        self.documented = documented
    }

    /// The methods `path` is served with (the document's, or the router's for a route the
    /// document does not describe), and its template; nil when no route has that path.
    func allowed(path: String) -> (template: String, methods: [String])? {
        let segments = path.split(separator: "/")
        var best: (pattern: Pattern, score: [Int])?
        for pattern in patterns {
            guard let score = pattern.match(segments) else { continue }
            if best == nil || best!.score.lexicographicallyPrecedes(score) {
                best = (pattern, score)
            }
        }
        guard let template = best?.pattern.template else { return nil }
        let methods = documented[template] ?? OpenAPIOperations.methods.filter { routed[template]?.contains($0) == true }
        return methods.isEmpty ? nil : (template, methods)
    }

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let (template, methods) = allowed(path: request.uri.path), !methods.contains(request.method.rawValue) else {
                throw error
            }
            let allow = methods.joined(separator: ", ")
            if let answer = ownAnswers[template] { return answer(allow) }
            throw APIError.methodNotAllowed(request.method.rawValue, allowed: allow)
        }
    }
}

extension APIError {
    /// 405 with `Allow`: the resource exists, the method is not one it takes.
    static func methodNotAllowed(_ method: String, allowed: String) -> APIError {
        APIError(.methodNotAllowed, "MethodNotAllowedError",
                 "\(method.prefix(16)) is not allowed here; this resource takes \(allowed)",
                 details: ["allow": allowed], headers: [.allow: allowed])
    }
}
