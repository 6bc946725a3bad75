import AtelierAPI
import Hummingbird

/// The caption app's facade (docs/clients.md §1): `/api/generateCaption`, with its own rate
/// limit per client IP (`ATELIER_CAPTION_RATE_LIMIT`) and its own error shape. Listed as
/// `caption` in `ATELIER_ANONYMOUS_APPS`, the route serves requests without a token.
struct CaptionApp: APIApp {
    static let anonymousName = "caption"
    var anonymousName: String? { Self.anonymousName }

    func register(on router: Router<APIRequestContext>, server: APIServer) throws {
        let configuration = server.configuration
        GenerateCaptionController(
            queue: server.queue, intake: server.intake, hub: server.hub, blobs: server.blobs, authenticator: server.authenticator,
            limiter: configuration.captionRateLimitPerMinute > 0 ? RateLimiter(perMinute: configuration.captionRateLimitPerMinute) : nil,
            timeout: configuration.captionTimeout).register(on: router)
    }

    /// Any other method on the route is METHOD_001, in the app's error shape.
    var ownMethodNotAllowed: [String: @Sendable (_ allow: String) -> Response] {
        ["/" + GenerateCaptionController.path: { allow in
            GenerateCaptionController.response(for: CaptionFailure(.method, "use POST for /api/generateCaption", headers: [.allow: allow]))
        }]
    }
}
