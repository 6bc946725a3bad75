import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// A real nginx (Debian's `nginx-light`, at `ATELIER_TEST_NGINX`, which ./ops/test sets) in front
/// of the test server, as a deployment puts one: it appends the address it saw to
/// `X-Forwarded-For` (`$proxy_add_x_forwarded_for`) and to `Forwarded` (`for=…`), so a client's
/// own header reaches the API with the real address after it. It listens on 127.0.0.1; clients
/// connect from other loopback addresses (``RawHTTPConnection/exchange(port:from:method:path:headers:body:)``)
/// to be told apart. One foreground process in a folder of its own, stopped by ``stop()``.
package final class TestNginx {
    package let port: Int
    private let process: Process
    private let folder: URL

    /// Starts nginx proxying to `127.0.0.1:upstream`; skips the test when ATELIER_TEST_NGINX is unset.
    package init(upstream: Int) throws {
        guard let binary = ProcessInfo.processInfo.environment["ATELIER_TEST_NGINX"], !binary.isEmpty else {
            throw XCTSkip("ATELIER_TEST_NGINX is not set (./ops/test installs nginx-light and sets it)")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A free port below the client range (STACK-NOTES, Ports): tried until nginx binds one.
        var attempts = 0
        while true {
            attempts += 1
            let port = Int.random(in: 20_000..<32_000)
            // A port another server listens on already would answer the probe below before
            // nginx, failing to bind it, exits: the test would then talk to that server.
            if attempts < 50, (try? RawHTTPConnection(port: port, readTimeout: 1)) != nil { continue }
            try Self.configuration(port: port, upstream: upstream, folder: folder.path)
                .write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["-c", folder.appendingPathComponent("nginx.conf").path, "-p", folder.path, "-e", folder.appendingPathComponent("error.log").path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.process = process
                return
            }
            Self.kill(process)
            let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            guard attempts < 55, log.contains("Address already in use") else {
                throw NSError(domain: "TestNginx", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(log.suffix(500))"])
            }
        }
    }

    /// SIGKILL, then a wait for Foundation to see it exit (not `waitUntilExit`, which spins a run
    /// loop that an async tear-down never gives it).
    package func stop() {
        Self.kill(process)
        try? FileManager.default.removeItem(at: folder)
    }

    private static func kill(_ process: Process) {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        for _ in 0..<400 where process.isRunning { usleep(10_000) }
    }

    deinit { stop() }

    private static func waitUntilListening(port: Int, process: Process) -> Bool {
        for _ in 0..<200 {
            if !process.isRunning { return false }
            if (try? RawHTTPConnection(port: port, readTimeout: 1)) != nil { return true }
            usleep(25_000)
        }
        return false
    }

    static func configuration(port: Int, upstream: Int, folder: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(folder)/nginx.pid;
        error_log \(folder)/error.log warn;
        events { worker_connections 256; }
        http {
            access_log off;
            client_body_temp_path \(folder)/body;
            proxy_temp_path \(folder)/proxy;
            fastcgi_temp_path \(folder)/fastcgi;
            uwsgi_temp_path \(folder)/uwsgi;
            scgi_temp_path \(folder)/scgi;
            map $http_forwarded $atelier_forwarded {
                "" "for=$remote_addr";
                default "$http_forwarded, for=$remote_addr";
            }
            server {
                listen 127.0.0.1:\(port);
                location / {
                    proxy_pass http://127.0.0.1:\(upstream);
                    proxy_http_version 1.1;
                    proxy_set_header Host $http_host;
                    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                    proxy_set_header Forwarded $atelier_forwarded;
                    proxy_set_header X-Forwarded-Proto $scheme;
                }
            }
        }
        """
    }
}
