import AtelierAPI
import AtelierAccounts
import AtelierDatabase
import AtelierEmbeddings
import AtelierHandlers
import AtelierImaging
import AtelierWorker
import AtelierQueue
import AtelierStorage
import AtelierVision
import Foundation
import Synchronization

extension Settings {
    func bool(_ name: String) throws -> Bool? {
        guard let text = string(name)?.lowercased() else { return nil }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError("\(name) must be true or false, got '\(text)'")
        }
    }

    /// `ATELIER_DATA_DIR` (default `.atelier/data`).
    var dataDirectory: URL {
        URL(fileURLWithPath: string("ATELIER_DATA_DIR") ?? ".atelier/data", isDirectory: true).standardizedFileURL
    }

    /// The API's settings; flags (non-nil arguments) win over the environment.
    func apiConfiguration(listen: String? = nil, publicURL: String? = nil, openAccess: Bool = false) throws -> APIConfiguration {
        var configuration = APIConfiguration()
        configuration.version = AtelierVersion.current
        let listenText = listen ?? string("ATELIER_LISTEN") ?? "127.0.0.1:8080"
        guard let addresses = ListenAddress.parseList(listenText) else {
            throw ConfigurationError("ATELIER_LISTEN must be host:port or several, comma-separated and each once "
                + "(e.g. 127.0.0.1:8080, 0.0.0.0:8080 or 0.0.0.0:5005,0.0.0.0:5400), got '\(listenText)'")
        }
        configuration.listen = addresses
        if let url = publicURL ?? string("ATELIER_PUBLIC_URL") {
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), URL(string: url)?.host != nil else {
                throw ConfigurationError("ATELIER_PUBLIC_URL must be an absolute http(s) URL, got '\(url)'")
            }
            configuration.publicURL = url
        }
        if let hosts = string("ATELIER_TRUSTED_HOSTS") {
            guard let trusted = TrustedHosts.parse(hosts) else {
                throw ConfigurationError("ATELIER_TRUSTED_HOSTS must be host names or IP addresses, each with an optional :port, "
                    + "comma-separated (e.g. 192.168.1.20,atelier.local:5005,[fe80::1]), got '\(hosts)'")
            }
            configuration.trustedHosts = trusted
        }
        var proxyHeader = TrustedProxies.Header.xForwardedFor
        if let header = string("ATELIER_PROXY_HEADER") {
            guard let chosen = TrustedProxies.Header(rawValue: header.lowercased()) else {
                throw ConfigurationError("ATELIER_PROXY_HEADER must be x-forwarded-for or forwarded (the header your proxy "
                    + "writes the client's address into), got '\(header)'")
            }
            proxyHeader = chosen
        }
        if let proxies = string("ATELIER_TRUSTED_PROXIES") {
            guard let trusted = TrustedProxies.parse(proxies, header: proxyHeader) else {
                throw ConfigurationError("ATELIER_TRUSTED_PROXIES must be IP addresses or CIDR ranges, comma-separated "
                    + "(e.g. 10.0.0.5,172.16.0.0/12,::1), got '\(proxies)'")
            }
            configuration.trustedProxies = trusted
        }
        configuration.dataDirectory = dataDirectory
        guard let secret = string("ATELIER_SIGNING_SECRET") else {
            throw ConfigurationError("ATELIER_SIGNING_SECRET is not set: it signs result URLs. Generate one with "
                + "`openssl rand -hex 32` (./ops/run creates one on first run and keeps it in .atelier/env)")
        }
        guard secret.utf8.count >= URLSigner.minimumSecretBytes else {
            throw ConfigurationError("ATELIER_SIGNING_SECRET must be at least \(URLSigner.minimumSecretBytes) bytes long")
        }
        configuration.signingSecret = secret
        if let jwtSecret = string("ATELIER_JWT_SECRET") {
            guard jwtSecret.utf8.count >= AccessTokens.minimumSecretBytes else {
                throw ConfigurationError("ATELIER_JWT_SECRET must be at least \(AccessTokens.minimumSecretBytes) bytes long")
            }
            configuration.jwtSecret = jwtSecret
        }
        configuration.accessTokenLifetime = try duration("ATELIER_ACCESS_TOKEN_TTL") ?? configuration.accessTokenLifetime
        configuration.refreshReuseWindow = try duration("ATELIER_REFRESH_REUSE_WINDOW") ?? configuration.refreshReuseWindow
        configuration.sessionMaxAge = try duration("ATELIER_SESSION_MAX_AGE") ?? configuration.sessionMaxAge
        guard configuration.sessionMaxAge >= .seconds(60), configuration.sessionMaxAge <= .seconds(365 * 24 * 3600) else {
            throw ConfigurationError("ATELIER_SESSION_MAX_AGE must be between 60s and 365d")
        }
        guard configuration.refreshReuseWindow >= .zero, configuration.refreshReuseWindow <= .seconds(300) else {
            throw ConfigurationError("ATELIER_REFRESH_REUSE_WINDOW must be between 0 (off) and 5m")
        }
        configuration.appleAudiences = list("ATELIER_APPLE_AUDIENCES") ?? []
        configuration.appleKeys = string("ATELIER_APPLE_JWKS") ?? configuration.appleKeys
        guard configuration.accessTokenLifetime >= .seconds(60), configuration.accessTokenLifetime <= .seconds(24 * 3600) else {
            throw ConfigurationError("ATELIER_ACCESS_TOKEN_TTL must be between 60s and 24h")
        }
        configuration.chatModel = try chatModel()
        configuration.resultURLLifetime = try duration("ATELIER_RESULT_URL_TTL") ?? configuration.resultURLLifetime
        guard configuration.resultURLLifetime >= .seconds(60) else {
            throw ConfigurationError("ATELIER_RESULT_URL_TTL must be at least 60s")
        }
        if try blobStoreKind() == .s3, configuration.resultURLLifetime > .seconds(QueryPresigner.maximumExpiry) {
            throw ConfigurationError("ATELIER_RESULT_URL_TTL must be at most 7d with ATELIER_BLOB_STORE=s3 "
                + "(a pre-signed S3 URL lives 7 days at most)")
        }
        if let bytes = try int("ATELIER_MAX_UPLOAD_BYTES") {
            guard bytes >= 1024 else { throw ConfigurationError("ATELIER_MAX_UPLOAD_BYTES must be at least 1024") }
            configuration.maxUploadBytes = bytes
        }
        configuration.openAccess = try openAccess || (bool("ATELIER_OPEN_ACCESS") ?? false)
        // Checked against the apps served when the server is made (APIServer names the valid ones).
        configuration.anonymousApps = Set((list("ATELIER_ANONYMOUS_APPS") ?? []).map { $0.lowercased() })
        if let limit = try int("ATELIER_RATE_LIMIT") {
            guard limit >= 0 else { throw ConfigurationError("ATELIER_RATE_LIMIT must be 0 (off) or more requests per minute") }
            configuration.rateLimitPerMinute = limit
        }
        for (name, keyPath) in [("ATELIER_UNAUTHENTICATED_RATE_LIMIT", \APIConfiguration.unauthenticatedRateLimitPerMinute),
                                ("ATELIER_ANONYMOUS_RATE_LIMIT", \.anonymousRateLimitPerMinute),
                                ("ATELIER_LOGIN_RATE_LIMIT", \.loginRateLimitPerAddress),
                                ("ATELIER_LOGIN_RATE_LIMIT_PER_EMAIL", \.loginRateLimitPerEmail),
                                ("ATELIER_MAX_ACTIVE_JOBS_PER_OWNER", \.maxActiveJobsPerOwner),
                                ("ATELIER_MAX_STORED_BYTES_PER_OWNER", \.maxStoredBytesPerOwner)] {
            if let value = try int(name) {
                guard value >= 0 else { throw ConfigurationError("\(name) must be 0 (no limit) or more") }
                configuration[keyPath: keyPath] = value
            }
        }
        if let megabytes = try int("ATELIER_VARIANT_MEMORY_MB") {
            guard (0...65_536).contains(megabytes) else { throw ConfigurationError("ATELIER_VARIANT_MEMORY_MB must be 0 (off) to 65536") }
            configuration.variantMemoryBytes = megabytes << 20
        }
        configuration.variantWait = try duration("ATELIER_VARIANT_WAIT") ?? configuration.variantWait
        guard configuration.variantWait >= .milliseconds(100), configuration.variantWait <= .seconds(60) else {
            throw ConfigurationError("ATELIER_VARIANT_WAIT must be from 100ms to 60s")
        }
        for (name, keyPath) in [("ATELIER_MAX_STREAMS", \APIConfiguration.maxStreams), ("ATELIER_MAX_STREAMS_PER_OWNER", \.maxStreamsPerOwner)] {
            if let value = try int(name) {
                guard value >= 1 else { throw ConfigurationError("\(name) must be at least 1") }
                configuration[keyPath: keyPath] = value
            }
        }
        configuration.httpIdleTimeout = try duration("ATELIER_HTTP_IDLE_TIMEOUT") ?? configuration.httpIdleTimeout
        guard configuration.httpIdleTimeout >= .seconds(1) else { throw ConfigurationError("ATELIER_HTTP_IDLE_TIMEOUT must be at least 1s") }
        if let limit = try int("ATELIER_CAPTION_RATE_LIMIT") {
            guard limit >= 0 else { throw ConfigurationError("ATELIER_CAPTION_RATE_LIMIT must be 0 (off) or more requests per minute") }
            configuration.captionRateLimitPerMinute = limit
        }
        configuration.captionTimeout = try duration("ATELIER_CAPTION_TIMEOUT") ?? configuration.captionTimeout
        guard configuration.captionTimeout >= .seconds(1) else { throw ConfigurationError("ATELIER_CAPTION_TIMEOUT must be at least 1s") }
        configuration.sseKeepAlive = try duration("ATELIER_SSE_KEEPALIVE") ?? configuration.sseKeepAlive
        guard configuration.sseKeepAlive >= .seconds(1) else { throw ConfigurationError("ATELIER_SSE_KEEPALIVE must be at least 1s") }
        for (name, keyPath) in [("ATELIER_LANE_PROBES", \ServerLanes.Configuration.probes), ("ATELIER_LANE_PASSWORDS", \.passwords),
                                ("ATELIER_LANE_EMBEDDINGS", \.embeddings),
                                ("ATELIER_LANE_CHAT", \.chat)] {
            if let limits = try laneLimits(name) { configuration.lanes[keyPath: keyPath] = limits }
        }
        guard configuration.lanes.fitsLaneThreads else {
            throw ConfigurationError("ATELIER_LANE_PROBES, _PASSWORDS and _EMBEDDINGS may have at most "
                + "\(ServerLanes.threadCapacity) places together")
        }
        configuration.accessLog = try bool("ATELIER_ACCESS_LOG") ?? true
        configuration.imageLimits = try imageLimits()
        return configuration
    }
}

extension Settings {
    /// A lane's `concurrency,queue[,max_wait]` (e.g. `2,64` or `2,64,2s`): 1…32 at once, 0…10000
    /// waiting, each for at most 0…60 s (2 s when not given).
    func laneLimits(_ name: String) throws -> ServerLanes.Limits? {
        guard let text = string(name) else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let usage = "\(name) must be concurrency,queue[,max_wait] — 1…\(ServerLanes.threadCapacity) at once, 0…10000 waiting, "
            + "each for at most 0s…60s (e.g. 2,64 or 2,64,2s), got '\(text.prefix(64))'"
        guard (2...3).contains(parts.count), let concurrency = Int(parts[0]), let queue = Int(parts[1]),
              (1...ServerLanes.threadCapacity).contains(concurrency), (0...10_000).contains(queue) else {
            throw ConfigurationError(usage)
        }
        var limits = ServerLanes.Limits(concurrency: concurrency, queue: queue)
        if parts.count == 3 {
            guard let maxWait = try? DurationText.parse(parts[2]), maxWait >= .zero, maxWait <= .seconds(60) else {
                throw ConfigurationError(usage)
            }
            limits.maxWait = maxWait
        }
        return limits
    }

    /// `ATELIER_IMAGE_MAX_PIXELS` (default 50 MP) and `ATELIER_IMAGE_MAX_SIDE` (20000 px): the
    /// API refuses larger uploads from their header, and workers check the same on decode.
    func imageLimits() throws -> ImageLimits {
        var limits = ImageLimits()
        if let pixels = try int("ATELIER_IMAGE_MAX_PIXELS") {
            guard (1_000_000...500_000_000).contains(pixels) else {
                throw ConfigurationError("ATELIER_IMAGE_MAX_PIXELS must be within 1000000…500000000, got \(pixels)")
            }
            limits.maxPixels = pixels
        }
        if let side = try int("ATELIER_IMAGE_MAX_SIDE") {
            guard (1_000...65_535).contains(side) else {
                throw ConfigurationError("ATELIER_IMAGE_MAX_SIDE must be within 1000…65535, got \(side)")
            }
            limits.maxDimension = side
        }
        return limits
    }
}

extension Settings {
    /// The MiniLM model from `ATELIER_MODEL_DIR`, loaded once per process; nil (with a warning)
    /// when the setting is absent, so a process without the model still runs everything else.
    /// A setting that points at no model is a start-up error naming it.
    func embeddingModel() throws -> MiniLMEncoder? {
        guard let directory = string("ATELIER_MODEL_DIR"), !directory.isEmpty else {
            FileHandle.standardError.write(Data("atelier: ATELIER_MODEL_DIR is not set: index jobs are not run and /v1/search answers 503 (./ops/run sets it)\n".utf8))
            return nil
        }
        let threads = try int("ATELIER_EMBED_THREADS") ?? 0
        guard (0...256).contains(threads) else {
            throw ConfigurationError("ATELIER_EMBED_THREADS must be within 0…256 (0: every core), got \(threads)")
        }
        MiniLMEncoder.limitThreads(to: threads)
        do {
            return try EmbeddingModelCache.shared(URL(fileURLWithPath: directory))
        } catch {
            throw ConfigurationError("ATELIER_MODEL_DIR=\(directory): \(error)")
        }
    }
}

extension Settings {
    /// `ATELIER_VISION_PROVIDER`: `local` (default; captions composed from measurements) or
    /// `openai` (an OpenAI-compatible endpoint: ATELIER_OPENAI_BASE_URL, _API_KEY, _MODEL,
    /// _TIMEOUT, _MAX_RETRIES).
    func visionProvider() throws -> any VisionProvider {
        switch string("ATELIER_VISION_PROVIDER") ?? "local" {
        case "", "local":
            return LocalVisionProvider()
        case "openai":
            var configuration = OpenAIVisionProvider.Configuration(
                baseURL: string("ATELIER_OPENAI_BASE_URL") ?? "https://api.openai.com/v1",
                apiKey: string("ATELIER_OPENAI_API_KEY"), model: string("ATELIER_OPENAI_MODEL") ?? "gpt-4o-mini")
            configuration.timeout = try duration("ATELIER_OPENAI_TIMEOUT") ?? configuration.timeout
            if let retries = try int("ATELIER_OPENAI_MAX_RETRIES") {
                guard (0...10).contains(retries) else { throw ConfigurationError("ATELIER_OPENAI_MAX_RETRIES must be within 0…10") }
                configuration.maxRetries = retries
            }
            do {
                return try OpenAIVisionProvider(configuration)
            } catch {
                throw ConfigurationError(error.description)
            }
        case let other:
            throw ConfigurationError("ATELIER_VISION_PROVIDER=\(other) is not a provider: use local or openai")
        }
    }
}

extension Settings {
    /// `ATELIER_CHAT_PROVIDER`: `local` (default; the Learn Assistant's chat quotes the user's
    /// closest note and says no model wrote it) or `openai` (any OpenAI-compatible endpoint:
    /// ATELIER_CHAT_BASE_URL, _API_KEY, _MODEL, _TIMEOUT, each falling back to its ATELIER_OPENAI_ twin).
    func chatModel() throws -> ChatCompletionsClient.Configuration? {
        switch string("ATELIER_CHAT_PROVIDER") ?? "local" {
        case "", "local":
            return nil
        case "openai":
            var configuration = ChatCompletionsClient.Configuration(
                baseURL: string("ATELIER_CHAT_BASE_URL") ?? string("ATELIER_OPENAI_BASE_URL") ?? "https://api.openai.com/v1",
                apiKey: string("ATELIER_CHAT_API_KEY") ?? string("ATELIER_OPENAI_API_KEY"),
                model: string("ATELIER_CHAT_MODEL") ?? string("ATELIER_OPENAI_MODEL") ?? "gpt-4o-mini")
            configuration.timeout = try duration("ATELIER_CHAT_TIMEOUT") ?? duration("ATELIER_OPENAI_TIMEOUT") ?? configuration.timeout
            do {
                _ = try ChatCompletionsClient(configuration, role: "the chat provider", settingPrefix: "ATELIER_CHAT")
            } catch {
                throw ConfigurationError(error.description)
            }
            return configuration
        case let other:
            throw ConfigurationError("ATELIER_CHAT_PROVIDER=\(other) is not a provider: use local or openai")
        }
    }
}

/// One model per process, however many places ask for it (`atelier dev` runs API and worker).
enum EmbeddingModelCache {
    private static let loaded = Mutex<[String: MiniLMEncoder]>([:])

    static func shared(_ directory: URL) throws -> MiniLMEncoder {
        if let encoder = loaded.withLock({ $0[directory.path] }) { return encoder }
        let encoder = try MiniLMEncoder(modelDirectory: directory)
        loaded.withLock { $0[directory.path] = encoder }
        return encoder
    }
}

/// The job kinds this build's workers run, as the API accepts them, and their handlers. The
/// diagnostic kinds (`noop`, `sleep`, `fail`, `echo`, `crash`) exist for tests and benchmarks: a
/// `sleep` holds a worker slot for up to an hour and a `crash` kills its worker process, so they
/// are off unless `ATELIER_DIAGNOSTIC_KINDS=true`.
enum BuiltInKinds {
    static func diagnosticsEnabled(_ settings: Settings) throws -> Bool {
        try settings.bool("ATELIER_DIAGNOSTIC_KINDS") ?? false
    }

    static func catalog(settings: Settings) throws -> JobKindCatalog {
        JobKindCatalog((try diagnosticsEnabled(settings) ? JobKindCatalog.diagnostics : [])
            + [JobKindCatalog.stylize, JobKindCatalog.index, JobKindCatalog.caption, JobKindCatalog.analysis, JobKindCatalog.upload])
    }

    static func handlers(blobs: any BlobStore, settings: Settings) throws -> [any JobHandler] {
        let maxSide = try settings.int("ATELIER_STYLIZE_MAX_SIDE") ?? 2048
        guard (64...16_384).contains(maxSide) else {
            throw ConfigurationError("ATELIER_STYLIZE_MAX_SIDE must be within 64…16384, got \(maxSide)")
        }
        var handlers: [any JobHandler] = (try diagnosticsEnabled(settings) ? DiagnosticHandlers.all(blobs: blobs) : [])
            + [StylizeHandler(blobs: blobs, limits: try settings.imageLimits(), maxSide: maxSide)]
        let vision = try settings.visionProvider()
        if let encoder = try settings.embeddingModel() {
            handlers.append(IndexHandler(encoder: encoder, blobs: blobs, captioner: vision, limits: try settings.imageLimits()))
        }
        handlers.append(CaptionHandler(blobs: blobs, provider: vision, limits: try settings.imageLimits()))
        handlers.append(AnalysisHandler(blobs: blobs, provider: vision, limits: try settings.imageLimits()))
        handlers.append(UploadHandler(blobs: blobs, limits: try settings.imageLimits()))
        // The photo variants the API asks for (`/variants/…`): rendered here, never in the API.
        handlers.append(VariantHandler(blobs: blobs, limits: try settings.imageLimits()))
        return handlers
    }
}
