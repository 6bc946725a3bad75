import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// `Expect: 100-continue` (RFC 9110 §10.1.1) in the HTTP/1 pipeline. curl asks for it before
/// any body over 1 MB and waits a second for the answer; this server used to give none.
///
/// The handler takes the `Expect` field off the request and hands the route a ticket instead
/// (an internal header no client can set: any incoming copy is removed). The route answers
/// `100 Continue` through ``ContinueTickets/release(_:)`` only once the request has passed
/// every check that needs no body — authentication, rate limits, quotas, Content-Length within
/// the limit (``RequestBodies/collect(_:context:limit:)``). A route that answers first sends its
/// final status instead; the client then never sends the body, so that answer says
/// `Connection: close` and the connection is closed after it (``ClosingAnswerHandler``) rather
/// than left waiting for bytes that will not come.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let ticketField = HTTPField.Name("X-Atelier-Continue-Ticket")!

    private var ticket: UInt64?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        head.headerFields[Self.ticketField] = nil
        if let expect = head.headerFields[.expect] {
            head.headerFields[.expect] = nil
            if expect.lowercased() == "100-continue" {
                let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
                let eventLoop = context.eventLoop
                let id = ContinueTickets.shared.issue {
                    eventLoop.execute { loopBound.value.handler.sendContinue(context: loopBound.value.context) }
                }
                ticket = id
                head.headerFields[Self.ticketField] = String(id)
            }
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The route released the ticket: tell the client to send its body.
    private func sendContinue(context: ChannelHandlerContext) {
        guard ticket != nil else { return }
        ticket = nil
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where response.status.kind != .informational:
            if let id = ticket {
                // A final answer before the body was asked for: the client will not send it.
                ContinueTickets.shared.withdraw(id)
                ticket = nil
                response.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(response)), promise: promise)
                return
            }
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let id = ticket { ContinueTickets.shared.withdraw(id) }
        ticket = nil
        context.fireChannelInactive()
    }
}

/// The open `100 Continue` tickets of this process: random ids, so one connection's request
/// can never release another's.
final class ContinueTickets: Sendable {
    static let shared = ContinueTickets()
    private let open = Mutex<[UInt64: @Sendable () -> Void]>([:])

    func issue(_ release: @escaping @Sendable () -> Void) -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return open.withLock { open in
            var id = generator.next() as UInt64
            while open[id] != nil || id == 0 { id = generator.next() }
            open[id] = release
            return id
        }
    }

    /// Sends the `100 Continue` of ticket `text` (the request's ticket header), once.
    func release(_ text: String?) {
        guard let text, let id = UInt64(text), let release = open.withLock({ $0.removeValue(forKey: id) }) else { return }
        release()
    }

    func withdraw(_ id: UInt64) {
        _ = open.withLock { $0.removeValue(forKey: id) }
    }

    var count: Int { open.withLock { $0.count } }
}
