import Foundation
import Hummingbird
import Logging

/// The outermost middleware: gives every request an id (the caller's `X-Request-ID` when it is
/// sane, else a new one), turns any error into its JSON response (``ErrorMapping``, the one
/// place), stamps `X-Request-ID` and `X-Response-Time`, and writes one access-log line.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let logger: Logger
    let accessLog: Bool
    let metrics: APIMetrics

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        let requestID = RequestID.accept(request.headers[.xRequestID]) ?? RequestID.make()
        context.requestID = requestID
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

    /// A random UUID, lower-case (formatted here: `uuidString.lowercased()` cost more than the
    /// rest of the middleware).
    static func make() -> String {
        let u = UUID().uuid
        let bytes = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
        let hex = Array(HeaderText.hex(bytes).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append(UInt8(ascii: "-")) }
            out.append(digit)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
