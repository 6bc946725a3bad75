import AtelierQueue
import Foundation
import Logging

/// Ends the open event streams of revoked tokens. On every `atelier_tokens` notification (and
/// after a listener reconnect, when one may have been missed) it asks the database, in one
/// query, which of the app tokens that have streams open are still live, and ends the others';
/// users' access tokens (``AccessTokenKey``) are checked against ``AccessRevocations`` instead:
/// a logged-out token's or a disabled user's streams end, the others' stay.
struct StreamRevoker: Sendable {
    let tokens: AppTokens
    let accounts: UserAccounts?
    let notifier: Notifier
    let hub: EventHub
    let logger: Logger

    func run() async {
        for await notification in notifier.subscribe(bufferingNewest: 16) {
            guard notification.channel == Notifier.Channel.tokens || notification == .reconnected else { continue }
            await check()
        }
    }

    func check() async {
        let streaming = hub.streamingTokens
        guard !streaming.isEmpty else { return }
        do {
            var revoked = Set<String>()
            var open = Set<String>()
            for key in streaming {
                if let access = AccessTokenKey.parse(key) {
                    if try await accessRevoked(access) { revoked.insert(key) }
                } else {
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
