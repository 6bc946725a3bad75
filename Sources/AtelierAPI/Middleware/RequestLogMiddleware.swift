import Foundation
import Hummingbird
import Logging
import Synchronization

/// The outermost middleware: gives every request an id (the caller's `X-Request-ID` when it is
/// sane, else a new one), works out who the client is behind a trusted proxy
/// (``TrustedProxies``), turns any error into its JSON response (``ErrorMapping``, the one
/// place), stamps `X-Request-ID` and `X-Response-Time`, and writes one access-log line.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let logger: Logger
    let accessLog: Bool
    let metrics: APIMetrics
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        let requestID = RequestID.accept(request.headers[.xRequestID]) ?? RequestID.make()
        context.requestID = requestID
        if !proxies.isEmpty { context.forwardedClient = proxies.client(peer: context.peerAddress, headers: request.headers) }
        context.logger[metadataKey: "request_id"] = .string(requestID)
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = ErrorMapping.apiError(for: error, requestID: requestID, logger: context.logger).response()
        }
        let elapsed = ContinuousClock.now - started
        response.headers[.xRequestID] = requestID
        response.headers[.xResponseTime] = Self.format(elapsed)
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(method: request.method.rawValue, route: route, status: response.status.code, duration: elapsed)
        if accessLog {
            context.logger.info("request", metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(Self.redacted(request.uri.path)),
                "route": .string(route),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .string(Self.milliseconds(elapsed)),
                "client": .string(context.clientAddress),
                "owner": .string(context.shared.owner.withLock { $0 } ?? "-"),
            ])
        }
        return response
    }

    /// The path as the access log shows it: a path that is itself a credential (Mondrian's
    /// signed `/image/source/<name>`, whose name carries its HMAC tag) keeps only its route.
    /// Query strings (result URLs' signatures) are never logged; tokens travel in headers only.
    static func redacted(_ path: String) -> String {
        for prefix in ["/image/source/"] where path.hasPrefix(prefix) {
            return prefix + "[redacted]"
        }
        return path.count > 512 ? String(path.prefix(512)) + "…" : path
    }

    static func format(_ duration: Duration) -> String {
        milliseconds(duration) + "ms"
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let whole = micros / 1000, fraction = micros % 1000
        return "\(whole)." + String(repeating: "0", count: fraction < 10 ? 2 : fraction < 100 ? 1 : 0) + "\(fraction)"
    }
}

/// Request ids: accepted from the caller when short and printable, else made here.
enum RequestID {
    static func accept(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 128,
              value.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return value
    }

    /// A new id in UUID form (lower-case, version 4 layout): a random number drawn once per
    /// process, plus a counter mixed through a bijection — unique per process, unrelated across
    /// processes, and no system call per request (`UUID()` asked the kernel for randomness each
    /// time, which with its formatting cost more than the rest of the middleware).
    static func make() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        return format(high: seed.high, low: seed.low ^ mix(count))
    }

    private static let seed: (high: UInt64, low: UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()
    private static let counter = Atomic<UInt64>(0)

    /// SplitMix64's finaliser: a bijection on 64 bits, so distinct counts give distinct ids.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func format(high: UInt64, low: UInt64) -> String {
        // Version 4 and the RFC 4122 variant, as a random UUID would carry.
        let high = (high & ~0xF000) | 0x4000
        let low = (low & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { out in
            var index = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    out[index] = digits[Int((value >> UInt64(shift)) & 0xF)]
                    index += 1
                }
            }
            func dash() { out[index] = UInt8(ascii: "-"); index += 1 }
            put(high >> 32, nibbles: 8); dash()
            put(high >> 16, nibbles: 4); dash()
            put(high, nibbles: 4); dash()
            put(low >> 48, nibbles: 4); dash()
            put(low, nibbles: 12)
            return 36
        }
    }
}
