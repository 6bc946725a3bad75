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
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Tests only: the Linux transport the tests talk to the server with.
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    ],
    targets: [
        // `openapi.yaml` here is what `atelier openapi` prints (./ops/check-client keeps it so);
        // the plugin turns it into `Client`, `Operations` and `Components` at build time.
        .target(
            name: "AtelierClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Against a real server, which ./ops/check-client starts (ATELIER_CLIENT_TEST_URL, _TOKEN).
        .testTarget(
            name: "AtelierClientTests",
            dependencies: [
                "AtelierClient",
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ]
        ),
    ]
)
