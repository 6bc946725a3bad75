import AtelierAPI
import AtelierWorker

/// The test server's settings as a test case's ``APITestCase/configure(_:)`` override changes
/// them (`configuration.api.rateLimitPerMinute = 5`). A wrapper, because an overridable (`open`)
/// hook cannot name a `package` type, and the API's types are `package`: the HTTP app is the
/// executable, not a library.
public struct ServerSettings {
    package var api: APIConfiguration
}

/// A kind of the test's own (``APITestCase/moreKinds``): its contract in the API's catalog and its
/// handler in the worker.
public struct TestKind {
    package let kind: JobKind
    package let handler: any JobHandler

    package init(_ kind: JobKind, _ handler: any JobHandler) {
        (self.kind, self.handler) = (kind, handler)
    }
}
