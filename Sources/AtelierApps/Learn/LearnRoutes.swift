import AtelierAPI
import AtelierAccounts
import AtelierJobs
import Foundation
import Hummingbird
import NIOCore

/// The signed-in user of a Learn Assistant request: whose points, reviews and chat sources.
struct LearnUser: Sendable {
    var id: UUID
    /// Their owner name everywhere else in Atelier (`user:<id>`): jobs and vectors are theirs.
    var owner: String
}

/// What the Learn Assistant's routes share: the Bearer access token (a user's — app tokens are
/// not users), the per-user rate limit every authenticated route has, the app's error body and
/// its JSON bodies and timestamps.
struct LearnRoutes: Sendable {
    let accounts: UserAccounts?
    let limiter: RateLimiter?

    /// The knowledge points' collection among a user's documents.
    static let collection = "learn"

    func configured() throws -> UserAccounts {
        guard let accounts else {
            throw LearnError(status: .serviceUnavailable, message: "Accounts are not configured on this server")
        }
        return accounts
    }

    /// The user of `Authorization: Bearer <access token>`; 401 without a valid, unrevoked one,
    /// 429 past the rate limit (`ATELIER_RATE_LIMIT`: the user's one budget, whichever of their
    /// tokens came, shared with the core API's routes).
    func user(_ request: Request) async throws -> LearnUser {
        let accounts = try configured()
        guard let token = Authenticator.credential(xAppToken: nil, authorization: request.headers[.authorization]) else {
            throw LearnError.unauthorized("Unauthorized")
        }
        let claims: AccessClaims
        do {
            claims = try await accounts.verify(token, audiences: [.learn])
        } catch is AccountError {
            throw LearnError.unauthorized("Invalid or expired token")
        }
        guard let id = claims.userID else { throw LearnError.unauthorized("Invalid or expired token") }
        if let limiter {
            let decision = limiter.take(Principal.userLimitKey(id))
            guard decision.allowed else {
                throw LearnError(status: .tooManyRequests, message: "Too many requests; retry in \(decision.retryAfter) s",
                                 retryAfter: decision.retryAfter)
            }
        }
        return LearnUser(id: id, owner: User.ownerPrefix + claims.sub.value)
    }

    /// The body as a JSON object; 413 past `limit` bytes, 400 when it is not one.
    static func object(_ request: Request, limit: Int = 64 * 1024) async throws -> JSONObject {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            throw LearnError(status: .contentTooLarge, message: "The body is larger than \(limit) bytes")
        }
        guard let object = JSONBody.object(buffer) else { throw LearnError.badRequest("The body must be a JSON object") }
        return object
    }

    /// A non-blank string of at most `max` characters (trimmed), without NUL; nil when absent
    /// (null is not a string: 400, as the document's schema says).
    static func text(_ object: JSONObject, _ field: String, max: Int) throws -> String? {
        guard let value = object[field] else { return nil }
        guard let raw = value.string else { throw LearnError.badRequest("\(field) must be a string") }
        // Counted as JSON Schema counts (code points), before trimming: what the document promises.
        guard raw.unicodeScalars.count <= max else { throw LearnError.badRequest("\(field) must be at most \(max) characters") }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw LearnError.badRequest("\(field) must not be blank") }
        guard !text.utf8.contains(0) else { throw LearnError.badRequest("\(field) must not contain NUL characters") }
        return text
    }

    static func bool(_ object: JSONObject, _ field: String) throws -> Bool? {
        guard let value = object[field] else { return nil }
        guard let flag = value.bool else { throw LearnError.badRequest("\(field) must be true or false") }
        return flag
    }

    /// The `:id` path parameter; any id that is not one of the user's is 404, malformed ones too.
    static func id(_ context: APIRequestContext, _ what: String) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw LearnError(status: .notFound, message: "\(what) not found")
        }
        return id
    }

    /// `2024-01-01T00:00:00Z`: whole seconds, as the app's document shows.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// The route's answer, or its failure as `{"error": "message"}`: the app's own errors as they
    /// are; the core API's refusals (a quota's 429, a database outage's 503) with their status and
    /// message; anything else as a 500 naming the request (details logged).
    static func answer(_ context: APIRequestContext, _ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as LearnError {
            return error.response
        } catch {
            let mapped = ErrorMapping.apiError(for: error, requestID: context.requestID, logger: context.logger)
            guard mapped.status.code < 500 || mapped.status == .serviceUnavailable else {
                return LearnError(status: .internalServerError, message: "Server error (request \(context.requestID))").response
            }
            return LearnError(status: mapped.status, message: mapped.message,
                              retryAfter: mapped.headers[.retryAfter].flatMap { Int($0) }).response
        }
    }
}
