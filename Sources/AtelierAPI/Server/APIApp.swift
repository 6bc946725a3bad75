import Hummingbird

/// An app's facade served beside the core API — the caption app's `/api/generateCaption` and
/// Mondrian's root routes live in AtelierApps — registered on the server's router after the core
/// routes, with the parts one API process shares (``APIServer``: the queue, the intake, the
/// event hub, search, blobs, signing, the authenticated group). The executable composes them.
package protocol APIApp: Sendable {
    func register(on router: Router<APIRequestContext>, server: APIServer) throws

    /// Path template (`/api/generateCaption`) → the app's own answer to a method that path is not
    /// served with, given the `Allow` value; paths not listed get the API's 405.
    var ownMethodNotAllowed: [String: @Sendable (_ allow: String) -> Response] { get }

    /// The name `ATELIER_ANONYMOUS_APPS` lists this app by, when its routes may serve requests
    /// without a credential (its client as printed sends none); nil: they never do.
    var anonymousName: String? { get }
}

extension APIApp {
    package var ownMethodNotAllowed: [String: @Sendable (_ allow: String) -> Response] { [:] }
    package var anonymousName: String? { nil }
}
