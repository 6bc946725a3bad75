import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes the connection once a final answer that says `Connection: close` is written, without
/// reading what is left of the request. The framework itself closes only when the *request*
/// asked to, and otherwise reads and parses the rest of every request body before the next
/// request — for an upload refused from its headers, 25 MB read only to be thrown away.
///
/// A route that refuses before reading the body (``JobIntake/refuseUploadIfProbesFull(_:)``) or
/// a `100 Continue` never sent (``ExpectContinueHandler``) answers `Connection: close`; this
/// handler then closes once the answer's last byte is flushed. What the client had sent past
/// that point is dropped by the kernel (a reset), but the answer stays readable: the client sees
/// the `503` and its `Retry-After`, or, if it was still sending, an error on its write.
final class ClosingAnswerHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closeAfterAnswer = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response) where response.status.kind != .informational:
            closeAfterAnswer = response.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .end where closeAfterAnswer:
            closeAfterAnswer = false
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let written = context.writeAndFlush(data)
            written.cascade(to: promise)
            written.whenComplete { _ in bound.value.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }
}
