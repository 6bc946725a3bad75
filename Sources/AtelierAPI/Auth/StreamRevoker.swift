import AtelierQueue
import Foundation
import Logging

/// Ends the open event streams of revoked tokens. On every `atelier_tokens` notification (and
/// after a listener reconnect, when one may have been missed) it asks the database, in one
/// query, which of the tokens that have streams open are still live, and ends the others'.
struct StreamRevoker: Sendable {
    let tokens: AppTokens
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
        let open = hub.streamingTokens
        guard !open.isEmpty else { return }
        do {
            let live = try await tokens.liveHashes(among: open)
            let revoked = open.subtracting(live)
            if !revoked.isEmpty {
                logger.info("ending the event streams of revoked tokens", metadata: ["tokens": "\(revoked.count)"])
                hub.endStreams(ofTokens: revoked)
            }
        } catch {
            logger.warning("could not check open streams' tokens", metadata: ["error": "\(error)"])
        }
    }
}
