import AtelierStorage
import Foundation
import Hummingbird
import NIOCore

/// `GET /results/KEY?expires=…&signature=…`: pre-signed downloads from the local blob store.
/// No credential: the signature is the credential. Expired or altered URLs → 403 with a JSON
/// error. Answers with Content-Type, Content-Length, a strong ETag (304 on If-None-Match),
/// Cache-Control up to the expiry, and single byte ranges (206 / 416).
struct ResultsController: Sendable {
    let blobs: any BlobStore
    let signer: URLSigner

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("results/**", use: download)
        router.head("results/**", use: download)
    }

    @Sendable func download(_ request: Request, context: APIRequestContext) async throws -> Response {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        let key: BlobKey
        do {
            key = try BlobKey(path)
        } catch {
            throw APIError.forbidden("this result URL is not valid")
        }
        let query = request.uri.queryParameters
        guard let expiresText = query["expires"], let expires = Int(String(expiresText)),
              let signature = query["signature"].map(String.init) else {
            throw APIError.forbidden("this result URL is not signed: it needs expires and signature")
        }
        switch signer.verify(key: key, expires: expires, signature: signature) {
        case .invalid: throw APIError.forbidden("this result URL's signature is not valid")
        case .expired: throw APIError.forbidden("this result URL has expired; fetch the job again for a fresh one")
        case .valid: break
        }
        return try await BlobResponse.serve(key, for: request, from: blobs,
                                            cacheControl: "private, max-age=\(max(0, expires - Int(Date().timeIntervalSince1970)))",
                                            missing: "this result no longer exists")
    }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for Last-Modified.
enum HTTPDate {
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
