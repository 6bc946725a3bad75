// swift-tools-version:6.0
import PackageDescription

// The Swift client for Atelier's apps: generated from the server's OpenAPI document by Apple's
// swift-openapi-generator (build plugin), so an app depends on this package alone — not on
// Hummingbird, PostgresNIO or the codecs. Foundation only; the transport is the app's choice
// (URLSession on Apple platforms, AsyncHTTPClient on Linux).
let package = Package(
    name: "AtelierClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "AtelierClient", targets: ["AtelierClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    ],
    targets: [
        // `openapi.yaml` here is what `atelier openapi` prints (./ops/check-client keeps it so);
        // the plugin turns it into `Client`, `Operations` and `Components` at build time.
        .target(
            name: "AtelierClient",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
)
