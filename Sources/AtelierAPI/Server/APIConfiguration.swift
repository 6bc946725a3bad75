import AtelierAccounts
import AtelierImaging
import AtelierVision
import Foundation

/// Everything `atelier serve` needs, read from `ATELIER_*` settings by the executable.
package struct APIConfiguration: Sendable {
    /// `ATELIER_LISTEN`: the addresses one process serves the same routes on (one or more,
    /// comma-separated `host:port`); the first is the default package base.
    package var listen = [ListenAddress(host: "127.0.0.1", port: 8080)]
    /// The first listen address's host and port.
    package var host: String {
        get { listen[0].host }
        set { listen[0].host = newValue }
    }
    package var port: Int {
        get { listen[0].port }
        set { listen[0].port = newValue }
    }
    /// `ATELIER_PUBLIC_URL`: the base of every absolute URL handed out (status, stream, results).
    package var publicURL: String?
    /// `ATELIER_TRUSTED_HOSTS`: `Host` values a request may carry for its answer's absolute URLs to
    /// be built on it instead of the configured base (``PublicBaseURL``); empty: never.
    package var trustedHosts = TrustedHosts()
    /// `ATELIER_TRUSTED_PROXIES` and `ATELIER_PROXY_HEADER`: the reverse proxies whose word on the
    /// client is believed — its address (per-address limits, logs) and its scheme (the console's
    /// cookie is `Secure` when the client reached the proxy over https).
    package var trustedProxies = TrustedProxies()
    /// `ATELIER_DATA_DIR`: local blobs live in `DATA_DIR/blobs`.
    package var dataDirectory = URL(fileURLWithPath: ".atelier/data")
    /// `ATELIER_SIGNING_SECRET`: HMAC key of pre-signed result URLs (≥ 32 bytes).
    package var signingSecret = ""
    /// `ATELIER_JWT_SECRET`: HMAC key of users' access tokens (≥ 32 bytes); nil: no accounts
    /// (sign-in routes answer 503, only app tokens are accepted).
    package var jwtSecret: String?
    /// `ATELIER_ACCESS_TOKEN_TTL`: how long an access token is valid (default an hour).
    package var accessTokenLifetime: Duration = .seconds(3600)
    /// `ATELIER_REFRESH_REUSE_WINDOW`: for this long after a refresh token is spent, presenting
    /// it again answers the same next token (a retry after a lost answer) instead of ending its
    /// family (default 30 s; 0 turns it off).
    package var refreshReuseWindow: Duration = .seconds(30)
    /// `ATELIER_SESSION_MAX_AGE`: no session outlives this from its sign-in, however often its
    /// tokens are refreshed; then the user signs in again (default 30 days).
    package var sessionMaxAge: Duration = .seconds(30 * 24 * 3600)
    /// `ATELIER_APPLE_AUDIENCES`: the bundle ids Sign in with Apple tokens must be for (comma
    /// separated); empty: `/api/ios/auth/apple` answers 503. `ATELIER_APPLE_JWKS`: Apple's keys, a
    /// URL (default Apple's) or a file.
    package var appleAudiences: [String] = []
    package var appleKeys = AppleKeys.appleURL
    /// `ATELIER_LOGIN_RATE_LIMIT`, `ATELIER_LOGIN_RATE_LIMIT_PER_EMAIL`: sign-in attempts per minute
    /// from one client address, and for one email; 0 turns either off.
    package var loginRateLimitPerAddress = 30
    package var loginRateLimitPerEmail = 10
    /// `ATELIER_CHAT_PROVIDER=openai`: the Learn Assistant's chat answers through this
    /// OpenAI-compatible endpoint (`ATELIER_CHAT_BASE_URL`, `_API_KEY`, `_MODEL`, `_TIMEOUT`); nil
    /// (`local`, the default): the chat quotes the user's closest note and says no model wrote it.
    package var chatModel: ChatCompletionsClient.Configuration?
    /// `ATELIER_RESULT_URL_TTL`: how long a result URL stays valid.
    package var resultURLLifetime: Duration = .seconds(3600)
    /// `ATELIER_MAX_UPLOAD_BYTES`: largest accepted request body (413 above it).
    package var maxUploadBytes = 25 * 1024 * 1024
    /// `ATELIER_OPEN_ACCESS=true`: no credential needed, every caller is `anonymous`. LAN demos only.
    package var openAccess = false
    /// `ATELIER_ANONYMOUS_APPS`: the apps (by ``APIApp/anonymousName``: `mondrian`, `caption`) whose
    /// routes serve a request without a credential under the app's anonymous owner
    /// (``Principal/anonymous(app:)``); a request with one is authenticated as always. Empty: off.
    package var anonymousApps: Set<String> = []
    /// `ATELIER_ANONYMOUS_RATE_LIMIT`: requests without a credential per minute per client address
    /// on those apps' routes (429 in the app's own shape past it); 0 turns it off.
    package var anonymousRateLimitPerMinute = 120
    /// `ATELIER_RATE_LIMIT`: requests per minute per proven token (per IP address on package
    /// routes and under open access); 0 turns it off.
    package var rateLimitPerMinute = 1200
    /// `ATELIER_UNAUTHENTICATED_RATE_LIMIT`: requests per minute per IP address whose credential
    /// is not yet known good (a token's first request in a minute, wrong tokens); each may cost
    /// a database lookup, so this is what bounds a flood of made-up tokens. 0 turns it off.
    package var unauthenticatedRateLimitPerMinute = 120
    /// `ATELIER_MAX_ACTIVE_JOBS_PER_OWNER`: jobs one owner may have waiting or running (429 past it); 0: no limit.
    package var maxActiveJobsPerOwner = 10_000
    /// `ATELIER_MAX_STORED_BYTES_PER_OWNER`: bytes of uploaded images one owner's unpurged jobs may keep; 0: no limit.
    package var maxStoredBytesPerOwner = 10 * 1024 * 1024 * 1024
    /// `ATELIER_LANE_PROBES`, `_PASSWORDS`, `_EMBEDDINGS`, `_CHAT` (`concurrency,queue`): the
    /// costly work a request may ask for runs in bounded lanes (``ServerLanes``); past a lane's
    /// places and line, `503` with `Retry-After` at once.
    package var lanes = ServerLanes.Configuration()
    /// `ATELIER_VARIANT_MEMORY_MB`: memory for the hottest photo variants (``VariantMemoryCache``),
    /// per API process; 0 turns it off (every variant is then read from the store).
    package var variantMemoryBytes = 64 << 20
    /// `ATELIER_VARIANT_WAIT`: how long a request for a variant not yet rendered waits for a
    /// worker to render it (a `variant` job) before it answers 503 with `Retry-After: 1`.
    package var variantWait: Duration = .seconds(10)
    /// `ATELIER_MAX_STREAMS`: open event streams per API process; `ATELIER_MAX_STREAMS_PER_OWNER`: per owner.
    package var maxStreams = 10_000
    package var maxStreamsPerOwner = 100
    /// `ATELIER_HTTP_IDLE_TIMEOUT`: a connection that sends nothing for this long while idle or
    /// while its request is being read is closed (slow or stalled clients); responses being
    /// written (event streams) are not cut.
    package var httpIdleTimeout: Duration = .seconds(60)
    /// `ATELIER_CAPTION_RATE_LIMIT`: `/api/generateCaption` requests per minute per client IP
    /// (the caption app's documented 60); 0 turns it off.
    package var captionRateLimitPerMinute = 60
    /// `ATELIER_CAPTION_TIMEOUT`: how long `/api/generateCaption` waits for its job before AI_001.
    package var captionTimeout: Duration = .seconds(60)
    /// `ATELIER_SSE_KEEPALIVE`: interval of `: keep-alive` comments on idle event streams.
    package var sseKeepAlive: Duration = .seconds(15)
    /// `ATELIER_ACCESS_LOG=false` silences the one-line-per-request log.
    package var accessLog = true
    /// `ATELIER_IMAGE_MAX_PIXELS`, `ATELIER_IMAGE_MAX_SIDE`: what an uploaded image may be,
    /// checked from its header before it is stored (the workers check the same on decode).
    package var imageLimits = ImageLimits()
    package var version = "0.0.0"

    package init() {}

    /// The package base URL without a trailing slash (`ATELIER_PUBLIC_URL`, else the first listen address).
    package var baseURL: String {
        var base = publicURL ?? "http://\(listen[0])"
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    package var blobDirectory: URL { dataDirectory.appendingPathComponent("blobs", isDirectory: true) }
}
