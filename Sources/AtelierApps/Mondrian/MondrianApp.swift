import AtelierAPI
import AtelierQueue
import Hummingbird

/// Mondrian's facade (docs/clients.md §2): its routes at the root, as its app calls them, behind
/// the same authentication and rate limit as `/v1`; its images (`/advisor_image/…`,
/// `/image/source/<signed name>`) are public, since the app's image views send no token.
/// Listed as `mondrian` in `ATELIER_ANONYMOUS_APPS`, the other routes serve requests without a
/// token too (the app as printed sends none).
struct MondrianApp: APIApp {
    var anonymousName: String? { "mondrian" }

    func register(on router: Router<APIRequestContext>, server: APIServer) throws {
        let (queue, blobs, signer, base) = (server.queue, server.blobs, server.signer, server.publicBase)
        let mondrian = server.authenticatedGroup(router.group(), app: anonymousName)
        MondrianUploadController(queue: queue, intake: server.intake, signer: signer, base: base,
                                 maxUploadBytes: server.configuration.maxUploadBytes).register(on: mondrian)
        MondrianJobsController(queue: queue, hub: server.hub, blobs: blobs).register(on: mondrian)
        MondrianIndexController(queue: queue, intake: server.intake, waiter: JobCompletionWaiter(queue: queue, hub: server.hub), signer: signer,
                                encoder: server.encoder, timeout: server.configuration.captionTimeout).register(on: mondrian)
        SearchController<MondrianSearchHit>(service: server.search, queue: queue, signer: signer, base: base).register(on: mondrian)
        AdvisorsController(base: base).register(list: mondrian, pictures: router)
        MondrianSourceImageController(queue: queue, blobs: blobs, signer: signer, links: server.links).register(on: router)
    }
}
