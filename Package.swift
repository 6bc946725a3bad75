// swift-tools-version:6.1
import PackageDescription

// Atelier: a PostgreSQL-backed job system for image work.
// Dependencies point one way: atelier (executable) → AtelierWorker → AtelierQueue.
let package = Package(
    name: "Atelier",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "atelier", targets: ["atelier"]),
        .library(name: "AtelierQueue", targets: ["AtelierQueue"]),
        .library(name: "AtelierWorker", targets: ["AtelierWorker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // The durable queue: schema migrations, enqueue, claim, leases, completion, maintenance.
        .target(
            name: "AtelierQueue",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Worker processes: handler protocol, claim loop, heartbeats, drain, supervisor.
        .target(
            name: "AtelierWorker",
            dependencies: [
                "AtelierQueue",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The one executable: `atelier migrate | work | queue | jobs | workers | bench`.
        .executableTarget(
            name: "atelier",
            dependencies: [
                "AtelierQueue",
                "AtelierWorker",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "AtelierQueueTests",
            dependencies: ["AtelierQueue", "AtelierWorker"]
        ),
    ]
)
