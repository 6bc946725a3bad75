import AtelierAPI
import AtelierAPITestSupport
import Foundation
import Hummingbird
import NIOHTTP1
import XCTest
import Yams

/// /metrics and /openapi.yaml.
final class ServiceEndpointTests: APITestCase {
    func testMetricsInPrometheusFormat() async throws {
        let id = try await createJob(kind: "noop")
        _ = try await waitForCompletion(id)
        let metrics = try await request(.GET, "/metrics", token: .some(nil))
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
        let text = metrics.text
        XCTAssertTrue(text.contains(#"atelier_jobs{kind="noop",state="succeeded"} 1"#), text)
        XCTAssertTrue(text.contains(#"atelier_http_requests_total{method="POST",route="/v1/jobs",status="2xx"} 1"#), text)
        XCTAssertTrue(text.contains("atelier_http_request_duration_seconds_bucket"), text)
    }

    /// Every served route is documented and every documented operation is served.
    func testOpenAPIDocumentMatchesTheRoutes() async throws {
        let reply = try await request(.GET, "/openapi.yaml", token: .some(nil))
        XCTAssertEqual(reply.status, 200)
        let document = try XCTUnwrap(try Yams.load(yaml: reply.text) as? [String: Any])
        XCTAssertEqual(document["openapi"] as? String, "3.1.0")
        XCTAssertEqual(((document["servers"] as? [[String: Any]])?.first?["url"]) as? String, baseURL)
        let paths = try XCTUnwrap(document["paths"] as? [String: Any])
        let methods: Set<String> = ["get", "post", "put", "delete", "head", "patch", "options"]
        var documented = Set<String>()
        for (path, item) in paths {
            for method in (item as? [String: Any] ?? [:]).keys where methods.contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        let served = Set(try server.makeRouter().routes.map { route -> String in
            let path = route.path.description
                .split(separator: "/").map { segment -> String in
                    if segment.hasPrefix(":") { return "{\(segment.dropFirst())}" }
                    if segment == "**" { return "{key}" }
                    return String(segment)
                }.joined(separator: "/")
            return "\(route.method.rawValue) /\(path)"
        }.filter { route in
            // The operator console's HTML pages (`/admin…`, docs/console.md) are for browsers, not
            // API clients: AtelierConsoleTests hold them.
            !route.split(separator: " ")[1].hasPrefix("/admin")
        })
        XCTAssertEqual(documented.subtracting(served), [], "documented but not served")
        // A route the document leaves out may only refuse its method: 405 with an Allow that
        // names the path's documented methods (the caption API's METHOD_001 routes).
        for route in served.subtracting(documented).sorted() {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            let declared = Set(((paths[parts[1]] as? [String: Any]) ?? [:]).keys.map { $0.uppercased() })
                .intersection(methods.map { $0.uppercased() })
            XCTAssertFalse(declared.isEmpty, "served but not documented: \(route)")
            let reply = try await request(HTTPMethod(rawValue: parts[0]), parts[1])
            XCTAssertEqual(reply.status, 405, "served but not documented, and not a refusal: \(route)")
            XCTAssertEqual(Set((reply.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }),
                           declared, "Allow of \(route)")
        }
        let schemas = try XCTUnwrap((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        XCTAssertNotNil(schemas["Job"])
        XCTAssertNotNil(schemas["Error"])
    }
}

/// /health, /health/ready and /health/live, with no worker in the process (a worker would spend its shutdown retrying the
/// database this test removes).
final class HealthTests: APITestCase {
    override var runsWorker: Bool { false }

    func testReadinessFailsAndLivenessHoldsWhenTheDatabaseStops() async throws {
        let healthy = try await request(.GET, "/health", token: .some(nil))
        XCTAssertEqual(healthy.status, 200)
        let body = try healthy.json()
        XCTAssertEqual(body["status"] as? String, "healthy")
        XCTAssertEqual(body["version"] as? String, "test")
        struct Health: Decodable { let status: String; let timestamp: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        XCTAssertNoThrow(try decoder.decode(Health.self, from: healthy.body), "a plain ISO-8601 decoder reads the timestamp: \(body)")
        XCTAssertEqual(body["checks"] as? [String: String], ["database": "ok", "storage": "ok", "listener": "ok"])

        let ready = try await request(.GET, "/health/ready", token: .some(nil))
        XCTAssertEqual(ready.status, 200)
        XCTAssertEqual(try ready.json()["checks"] as? [String: String], ["database": "ok", "storage": "ok", "listener": "ok"])

        try await db.dropNow()
        var degraded: Reply?
        try await db.eventually("health reports the database down", timeout: .seconds(20)) {
            let reply = try await request(.GET, "/health", token: .some(nil))
            degraded = reply
            // The database is asked at most once a second: the listener may report first.
            return reply.status == 503 && ((try? reply.json())?["checks"] as? [String: String])?["database"] == "error"
        }
        let report = try XCTUnwrap(degraded).json()
        XCTAssertEqual(report["status"] as? String, "degraded")
        XCTAssertEqual((report["checks"] as? [String: String])?["database"], "error")
        XCTAssertEqual((report["checks"] as? [String: String])?["storage"], "ok")
        XCTAssertTrue((report["message"] as? String ?? "").contains("database"))
        let unready = try await request(.GET, "/health/ready", token: .some(nil))
        XCTAssertEqual(unready.status, 503, "readiness is the same report")
        // Liveness asks no dependency: with the database gone the process is still alive.
        let alive = try await request(.GET, "/health/live", token: .some(nil))
        XCTAssertEqual(alive.status, 200)
        XCTAssertEqual(try alive.json()["status"] as? String, "alive")
        XCTAssertEqual(try alive.json()["version"] as? String, "test")
    }
}
