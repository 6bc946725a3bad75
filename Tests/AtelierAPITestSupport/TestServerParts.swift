import AtelierEmbeddings
import AtelierVision

/// The embedding model a test class gives the server and the worker
/// (``APITestCase/embeddingModel``). A box: an `open` member may name only public types, and the
/// model's type is the package's own.
public struct TestEmbeddingModel: Sendable {
    package let encoder: MiniLMEncoder?
    package init(_ encoder: MiniLMEncoder?) { self.encoder = encoder }
}

/// The vision provider a test class captions with (``APITestCase/visionProvider``), boxed for
/// the same reason.
public struct TestVisionProvider: Sendable {
    package let provider: any VisionProvider
    package init(_ provider: any VisionProvider) { self.provider = provider }
}
