import AtelierAPI
import Hummingbird
import HTTPTypes

/// The console's HTML pages: one shell (navigation, sign-out, the stylesheet and script served
/// from the binary) around each page's content, and the answers every page shares — a redirect,
/// an error page. Pages are written on the server and work without the script; the script only
/// keeps them live.
enum ConsolePage {
    enum Section: String, CaseIterable {
        case overview = "Overview", jobs = "Jobs", workers = "Workers", queues = "Queues"

        var path: String {
            switch self {
            case .overview: "/admin"
            case .jobs: "/admin/jobs"
            case .workers: "/admin/workers"
            case .queues: "/admin/queues"
            }
        }
    }

    /// What every console answer carries: no caching of operator data, no framing, no referrer
    /// (result previews are signed URLs), scripts and styles from this server only.
    static let securityHeaders: HTTPFields = [
        .cacheControl: "no-store",
        .contentSecurityPolicy: "default-src 'self'; img-src 'self' http: https: data:; style-src 'self'; script-src 'self'; "
            + "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

    /// A whole page. `live` names what the script keeps up to date (`overview`, `jobs`, `job`).
    static func render(title: String, section: Section?, csrf: String?, live: String? = nil, body: String,
                       status: HTTPResponse.Status = .ok) -> Response {
        var nav = ""
        if let csrf {
            nav = "<nav aria-label=\"Console\"><ul>"
            for item in Section.allCases {
                let current = item == section ? " aria-current=\"page\"" : ""
                nav += "<li><a href=\"\(item.path)\"\(current)>\(item.rawValue)</a></li>"
            }
            nav += "</ul><form method=\"post\" action=\"/admin/logout\" class=\"signout\">"
                + "<input type=\"hidden\" name=\"csrf\" value=\"\(h(csrf))\"><button type=\"submit\">Sign out</button></form></nav>"
        }
        let liveAttribute = live.map { " data-live=\"\(h($0))\"" } ?? ""
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(h(title)) · Atelier console</title>
            <link rel="stylesheet" href="/admin/assets/console.css">
            <script src="/admin/assets/console.js" defer></script>
            </head>
            <body>
            <a class="skip" href="#main">Skip to content</a>
            <header><a class="brand" href="/admin">Atelier console</a>\(nav)</header>
            <main id="main"\(liveAttribute)>
            <h1>\(h(title))</h1>
            \(live == nil ? "" : "<p id=\"live-status\" class=\"live-status\" role=\"status\" aria-live=\"polite\"></p>")
            \(body)
            </main>
            </body>
            </html>
            """
        var headers = securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// 303 See Other to a console path.
    static func redirect(to path: String) -> Response {
        var headers = securityHeaders
        headers[.location] = path
        return Response(status: .seeOther, headers: headers)
    }

    /// An error page: the refusal's title and sentence, nothing else.
    static func error(_ error: ConsoleError, request: Request, context: APIRequestContext) -> Response {
        let csrf: String? = nil
        var body = "<p class=\"error\" role=\"alert\">\(h(error.message))</p>"
        switch error.status {
        case .unauthorized, .forbidden:
            body += "<p><a href=\"/admin/login\">Sign in</a></p>"
        default:
            body += "<p><a href=\"/admin\">Back to the overview</a></p>"
        }
        if error.status.code >= 500 { body += "<p class=\"muted\">Request id: \(h(context.requestID))</p>" }
        var response = render(title: error.title, section: nil, csrf: csrf, body: body, status: error.status)
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
