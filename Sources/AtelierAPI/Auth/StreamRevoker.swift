import AtelierQueue
import Foundation
import Logging

/// Ends the open event streams of revoked tokens. When app tokens change (and after a listener
/// reconnect, when a notification may have been missed) it asks the database, in one query,
/// which of the app tokens that have streams open are still live, and ends the others'. A
/// user's logout (`jti:`) ends that token's streams from memory, and a user's disabling
/// (`user:`) checks that user's streams only (``TokenNotice``): neither asks about app tokens.
/// Users' access tokens (``AccessTokenKey``) are checked against ``AccessRevocations``.
struct StreamRevoker: Sendable {
    let tokens: AppTokens
    let accounts: UserAccounts?
    let notifier: Notifier
    let hub: EventHub
    let logger: Logger

    func run() async {
        for await notification in notifier.subscribe(bufferingNewest: 16) {
            if notification == .reconnected { await check(); continue }
            guard notification.channel == Notifier.Channel.tokens else { continue }
            switch TokenNotice(payload: notification.payload) {
            case .appTokens: await check()
            case .accessToken(let id): await check(appTokens: false) { $0.tokenID == id }
            case .user(let id): await check(appTokens: false) { $0.userID == id }
            }
        }
    }

    /// Ends the streams of revoked tokens among the open ones: users' access tokens that
    /// `concerned` picks (from memory, or the database when memory cannot tell), and — when
    /// `appTokens` — every app token, in one query.
    func check(appTokens: Bool = true, _ concerned: ((tokenID: UUID, userID: UUID)) -> Bool = { _ in true }) async {
        let streaming = hub.streamingTokens
        guard !streaming.isEmpty else { return }
        do {
            var revoked = Set<String>()
            var open = Set<String>()
            for key in streaming {
                if let access = AccessTokenKey.parse(key) {
                    if concerned(access), try await accessRevoked(access) { revoked.insert(key) }
                } else if appTokens {
                    open.insert(key)
                }
            }
            if !open.isEmpty { revoked.formUnion(open.subtracting(try await tokens.liveHashes(among: open))) }
            if !revoked.isEmpty {
                logger.info("ending the event streams of revoked tokens", metadata: ["tokens": "\(revoked.count)"])
                hub.endStreams(ofTokens: revoked)
            }
        } catch {
            logger.warning("could not check open streams' tokens", metadata: ["error": "\(error)"])
        }
    }

    private func accessRevoked(_ access: (tokenID: UUID, userID: UUID)) async throws -> Bool {
        guard let accounts else { return true }
        if let known = accounts.revocations.isRevokedInMemory(tokenID: access.tokenID, userID: access.userID) { return known }
        if try await accounts.revoked.isRevoked(access.tokenID) { return true }
        return try await accounts.users.find(id: access.userID)?.disabledAt != nil
    }
}
