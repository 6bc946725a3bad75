import AtelierAccounts
import Foundation

/// How often one may try to sign in: per client address (someone trying many accounts) and per
/// email (many addresses trying one account); `ATELIER_LOGIN_RATE_LIMIT` (30 a minute) and
/// `ATELIER_LOGIN_RATE_LIMIT_PER_EMAIL` (10). A refusal says when to retry. One budget per API
/// process, shared by every sign-in route (the fleet app's and the console's). The email is
/// counted as the store compares it (``EmailKey``): spaces, case or Unicode form buy no tries.
package struct LoginLimits: Sendable {
    let perAddress: RateLimiter?
    let perEmail: RateLimiter?

    package init(perAddress: Int, perEmail: Int) {
        self.perAddress = perAddress > 0 ? RateLimiter(perMinute: perAddress) : nil
        self.perEmail = perEmail > 0 ? RateLimiter(perMinute: perEmail) : nil
    }

    /// nil when this attempt may go ahead; otherwise the seconds to wait. A refusal by address
    /// charges nothing to the email.
    package func retryAfter(address: String, email: String, now: Double = Date().timeIntervalSince1970) -> Int? {
        Self.wait(perAddress, "login-ip:" + address, now) ?? Self.wait(perEmail, "login-email:" + EmailKey.key(email), now)
    }

    /// nil when a request from `address` to a sign-in route without an email (a bad access or
    /// refresh token, an Apple identity token) may go ahead; otherwise the seconds to wait.
    /// Charged to the address's sign-in budget.
    package func retryAfter(address: String, now: Double = Date().timeIntervalSince1970) -> Int? {
        Self.wait(perAddress, "login-ip:" + address, now)
    }

    /// nil when one more sign-in as `identity` (an Apple account, a refresh token's user) may go
    /// ahead; otherwise the seconds to wait. Charged to the per-email budget under its own key.
    package func retryAfter(identity: String, now: Double = Date().timeIntervalSince1970) -> Int? {
        Self.wait(perEmail, "login-identity:" + identity, now)
    }

    /// Takes one try from `limiter`'s bucket `key`: nil when allowed (or unlimited), else the wait.
    private static func wait(_ limiter: RateLimiter?, _ key: String, _ now: Double) -> Int? {
        guard let limiter else { return nil }
        let decision = limiter.take(key, now: now)
        return decision.allowed ? nil : decision.retryAfter
    }
}
