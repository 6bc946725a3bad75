import NIOCore

/// Starts each connection's receive buffer small. NIO keeps one receive buffer per connection
/// for reuse and starts it at 2 KB; a request's head is a few hundred bytes, and an idle event
/// stream keeps its buffer for hours. The buffer still grows as reads fill it (uploads).
final class ReceiveBufferSizing: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never
    static let initialBytes = 512

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(
            ChannelOptions.recvAllocator,
            value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: Self.initialBytes, maximum: 65536))
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}
