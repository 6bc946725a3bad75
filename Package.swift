// swift-tools-version:6.1
import PackageDescription

// Atelier: a PostgreSQL-backed job system for image work. The target graph — what each target
// holds and depends on — is drawn once, in docs/architecture.md §8; change it there in the same
// commit as a dependency here (./ops/check-imports checks the imports and §8 against this file).
let package = Package(
    name: "Atelier",
    platforms: [.macOS(.v15)],
    // What an embedder may depend on: the queue client, the worker runtime, and the database and
    // blob stores they are built on — none of them names an app, a codec or the HTTP server. The
    // HTTP API with the apps is the `atelier` executable. Only these targets declare `public`
    // (./ops/check-access; their public declarations are listed in docs/public-api.txt).
    products: [
        .executable(name: "atelier", targets: ["atelier"]),
        .library(name: "AtelierDatabase", targets: ["AtelierDatabase"]),
        .library(name: "AtelierQueue", targets: ["AtelierQueue"]),
        .library(name: "AtelierWorker", targets: ["AtelierWorker"]),
        .library(name: "AtelierStorage", targets: ["AtelierStorage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The OpenAI-compatible vision provider's and the S3 blob store's client (and the tests'
        // client over loopback);
        // a YAML parser for the OpenAPI check (tests only).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Access tokens (HS256 JWTs) and, for Sign in with Apple, RS256 identity tokens and JWKS.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    ],
    targets: [
        // FNV-1a: a hash that is the same in every process (migration checksums, ETags, the local
        // captioner's and the advisor pictures' seeds); a leaf, so any target may use it.
        .target(name: "AtelierHashing"),
        // A target's data files (.yaml, .js, .css, .sql under its folder, each also in its `exclude:`)
        // built into it as `EmbeddedAssets` strings (EmbedFiles writes them): the OpenAPI document,
        // the console's assets, the migration lines, the queue's definitions and statements. The
        // binary never looks for them on disk.
        .executableTarget(name: "EmbedFiles"),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["EmbedFiles"]),
        // The database itself: DatabaseURL (ATELIER_DATABASE_URL), migration lines and their
        // migrator, definitions, ConfigurationError for bad settings. No schema of its own.
        .target(
            name: "AtelierDatabase",
            dependencies: [
                "AtelierHashing",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The durable queue: enqueue, claim, leases, completion, control, inspection, notifier,
        // schedules. Its own migration line (Migrations/: PostgreSQL alone) and its functions and
        // views, defined once each in SQL/ (applied by the migrator when they change).
        .target(
            name: "AtelierQueue",
            dependencies: [
                "AtelierDatabase",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Inspection/count_jobs.sql", "Inspection/job_counts.sql", "Inspection/queue_depths.sql",
                      "Leases/report_progress.sql", "Limits/set_kind_limits.sql", "Maintenance/purge_finished.sql",
                      "Schedules/schedule_tick.sql", "Migrations", "SQL"],
            plugins: ["EmbedAssets"]
        ),
        // The apps' migration line: users and their tokens, app tokens, documents and reviews,
        // indexed items (pgvector). Applied after the queue's by the executable and the tests.
        .target(
            name: "AtelierAppsSchema",
            dependencies: ["AtelierDatabase"],
            exclude: ["Migrations"],
            plugins: ["EmbedAssets"]
        ),
        // C codecs: libjpeg-turbo, libpng, libheif and libwebp behind a small C layer (errors as
        // codes, never longjmp into Swift), and colour management with lcms2 (profiles → sRGB).
        .target(
            name: "CAtelierCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png"), .linkedLibrary("heif"), .linkedLibrary("webp"),
                             .linkedLibrary("webpmux"), .linkedLibrary("avif"), .linkedLibrary("lcms2"), .linkedLibrary("z"),
                             .linkedLibrary("m")]
        ),
        // The MiniLM inner loops in C: packed AVX-512 linear layers (chosen at run time), the
        // OpenBLAS path (Debian's libopenblas-dev) for other CPUs, LayerNorm and attention.
        // Always optimised: at -O0 the intrinsics spill every register, and the tests embed a lot.
        .target(
            name: "CAtelierEmbeddingKernels",
            cSettings: [.unsafeFlags(["-O3"])],
            linkerSettings: [.linkedLibrary("openblas")]
        ),
        // Sentence embeddings: safetensors, WordPiece, the MiniLM forward pass.
        .target(
            name: "AtelierEmbeddings",
            dependencies: ["CAtelierEmbeddingKernels"]
        ),
        // Semantic search: indexed items and their vectors in PostgreSQL (pgvector).
        .target(
            name: "AtelierSearch",
            dependencies: [
                "AtelierDatabase",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Inner loops Swift does not vectorise (float ↔ byte conversion), in plain C.
        .target(name: "CAtelierKernels"),
        // Images: pixel buffers, format sniffing, decode with limits, encode.
        .target(
            name: "AtelierImaging",
            dependencies: ["CAtelierCodecs", "CAtelierKernels"]
        ),
        // Describing photos: the VisionProvider protocol, the local provider (captions composed
        // from measurements), the OpenAI-compatible provider.
        .target(
            name: "AtelierVision",
            dependencies: [
                "AtelierImaging",
                "AtelierHashing",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Blobs: the BlobStore protocol, the local-directory store, the S3-compatible store (AWS
        // Signature V4, our own, over AsyncHTTPClient), pre-signed URL signing.
        .target(
            name: "AtelierStorage",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Bounded lanes for the costly work a request may ask for (an image probe, a password
        // check, a query's embedding, a chat answer): so many at once, so many waiting, then 503.
        .target(
            name: "AtelierLanes",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]
        ),
        // Accounts: users (scrypt passwords), access tokens (JWTs), refresh tokens rotated in
        // families, revoked access tokens, Sign in with Apple (identity tokens against Apple's keys).
        .target(
            name: "AtelierAccounts",
            dependencies: [
                "AtelierDatabase",
                "AtelierLanes",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        // The job kinds' contracts: one file per kind with its Payload, Result and checks, shared by
        // the API (which checks and enqueues) and the handlers (which decode and run).
        .target(
            name: "AtelierJobs",
            dependencies: ["AtelierImaging"]
        ),
        // Worker processes: handler protocol, claim loop, heartbeats, drain, supervisor.
        .target(
            name: "AtelierWorker",
            dependencies: [
                "AtelierQueue",
                "AtelierDatabase",
                "AtelierStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Job handlers of the real kinds (stylize …), registered by the executable.
        .target(
            name: "AtelierHandlers",
            dependencies: [
                "AtelierJobs",
                "AtelierWorker",
                "AtelierImaging",
                "AtelierStorage",
                "AtelierQueue",
                "AtelierEmbeddings",
                "AtelierSearch",
                "AtelierVision",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The core HTTP API: jobs, SSE, result downloads, search, documents, tokens, health, metrics,
        // OpenAPI; other targets add routes to it (APIApp).
        .target(
            name: "AtelierAPI",
            dependencies: [
                "AtelierAccounts",
                "AtelierJobs",
                "AtelierQueue",
                "AtelierDatabase",
                "AtelierStorage",
                "AtelierImaging",
                "AtelierSearch",
                "AtelierEmbeddings",
                "AtelierVision",
                "AtelierHashing",
                "AtelierLanes",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["OpenAPI/openapi.yaml"],
            plugins: ["EmbedAssets"]
        ),
        // The apps' facades on the core API: the caption app's /api/generateCaption and Mondrian's
        // routes at the root (docs/clients.md §1, §2), registered by the executable.
        .target(
            name: "AtelierApps",
            dependencies: [
                "AtelierAPI",
                "AtelierAccounts",
                "AtelierJobs",
                "AtelierQueue",
                "AtelierStorage",
                "AtelierImaging",
                "AtelierVision",
                "AtelierSearch",
                "AtelierEmbeddings",
                "AtelierLanes",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The operator console (/admin): HTML pages for admins, live over SSE, assets built in.
        .target(
            name: "AtelierConsole",
            dependencies: [
                "AtelierAPI",
                "AtelierAccounts",
                "AtelierJobs",
                "AtelierQueue",
                "AtelierStorage",
                "AtelierVision",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Assets/console.css", "Assets/console.js"],
            plugins: ["EmbedAssets"]
        ),
        // The one executable: `atelier serve | dev | migrate | work | queue | jobs | workers | tokens | bench`.
        .executableTarget(
            name: "atelier",
            dependencies: [
                "AtelierAccounts",
                "AtelierQueue",
                "AtelierDatabase",
                "AtelierAppsSchema",
                "AtelierWorker",
                "AtelierAPI",
                "AtelierApps",
                "AtelierConsole",
                "AtelierHandlers",
                "AtelierSearch",
                "AtelierStorage",
                "AtelierImaging",
                "AtelierEmbeddings",
                "AtelierVision",
                "CAtelierKernels",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Shared by the test targets: a fresh migrated database per test on the PostgreSQL of
        // ./ops/test, an S3 blob store per test on its SeaweedFS, a real `atelier` process, and a
        // server replaying the OpenAI chat-completions protocol.
        .target(
            name: "AtelierTestSupport",
            dependencies: [
                "AtelierQueue",
                "AtelierDatabase",
                "AtelierAppsSchema",
                "AtelierStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/AtelierTestSupport"
        ),
        // Migration lines (built in = the checkout's files, re-run, newer database refused, the queue's
        // line alone, a database from before the lines adopted), definitions and DatabaseURL.
        .testTarget(
            name: "AtelierDatabaseTests",
            dependencies: ["AtelierDatabase", "AtelierQueue", "AtelierAppsSchema", "AtelierTestSupport", .product(name: "Logging", package: "swift-log"),
                           .product(name: "PostgresNIO", package: "postgres-nio")],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "AtelierQueueTests",
            dependencies: ["AtelierQueue", "AtelierDatabase", "AtelierTestSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // The worker runtime in process and as real `atelier work` processes (exactly once,
        // SIGKILL, SIGTERM, the supervisor), crashes and poison pills, maintenance, diagnostic kinds.
        .testTarget(
            name: "AtelierWorkerTests",
            dependencies: [
                "AtelierWorker",
                "AtelierHandlers",
                "AtelierQueue",
                "AtelierDatabase",
                "AtelierStorage",
                "AtelierTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `atelier` binary as operators and scripts use it: output, --json, exit codes.
        .testTarget(
            name: "AtelierCLITests",
            dependencies: ["AtelierQueue", "AtelierDatabase", "AtelierAccounts", "AtelierImaging", "AtelierTestSupport"]
        ),
        .testTarget(
            name: "AtelierJobsTests",
            dependencies: ["AtelierJobs", "AtelierImaging"]
        ),
        .testTarget(
            name: "AtelierImagingTests",
            dependencies: ["AtelierImaging", "CAtelierCodecs", "CAtelierColorFixtures"],
            exclude: ["Fixtures"]
        ),
        // Colour test fixtures and lcms2's reference transform, written with lcms2, libheif and
        // libjpeg directly (not with Atelier's code); tests only.
        .target(
            name: "CAtelierColorFixtures",
            path: "Tests/CAtelierColorFixtures",
            linkerSettings: [.linkedLibrary("lcms2"), .linkedLibrary("heif"), .linkedLibrary("jpeg")]
        ),
        .testTarget(
            name: "AtelierVisionTests",
            dependencies: ["AtelierVision", "AtelierImaging", "AtelierTestSupport"]
        ),
        .testTarget(
            name: "AtelierEmbeddingsTests",
            dependencies: ["AtelierEmbeddings"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "AtelierSearchTests",
            dependencies: [
                "AtelierSearch",
                "AtelierEmbeddings",
                "AtelierQueue",
                "AtelierTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // One blob-store suite run against both stores (a directory, and the SeaweedFS of ./ops/test),
        // the signer against botocore's fixtures, what only the S3 store does.
        .testTarget(
            name: "AtelierStorageTests",
            dependencies: [
                "AtelierStorage",
                "AtelierTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "AtelierHashingTests",
            dependencies: ["AtelierHashing"]
        ),
        .testTarget(
            name: "AtelierLanesTests",
            dependencies: ["AtelierLanes"]
        ),
        .testTarget(
            name: "AtelierAccountsTests",
            dependencies: [
                "AtelierAccounts",
                "AtelierTestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        // Shared by the HTTP test targets: the real server (core routes and the apps'), an
        // in-process worker with the real handlers, a real HTTP client, SSE and raw-socket readers.
        .target(
            name: "AtelierAPITestSupport",
            dependencies: [
                "AtelierAPI",
                "AtelierDatabase",
                "AtelierApps",
                "AtelierConsole",
                "AtelierHandlers",
                "AtelierWorker",
                "AtelierQueue",
                "AtelierStorage",
                "AtelierEmbeddings",
                "AtelierVision",
                "AtelierTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/AtelierAPITestSupport"
        ),
        .testTarget(
            name: "AtelierAPITests",
            dependencies: [
                "AtelierAPI",
                "AtelierAPITestSupport",
                "AtelierDatabase",
                "AtelierAccounts",
                "AtelierLanes",
                "AtelierQueue",
                "AtelierStorage",
                "AtelierWorker",
                "AtelierTestSupport",
                "AtelierImaging",
                "AtelierEmbeddings",
                "CAtelierColorFixtures",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "AtelierAppsTests",
            dependencies: [
                "AtelierAPI",
                "AtelierAccounts",
                "AtelierAPITestSupport",
                "AtelierQueue",
                "AtelierStorage",
                "AtelierTestSupport",
                "AtelierImaging",
                "AtelierEmbeddings",
                "AtelierVision",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The operator console through a real server: sign-in, CSRF, actions and their audit, the
        // job list, live updates, and a real browser (Selenium driving Debian's Chromium).
        .testTarget(
            name: "AtelierConsoleTests",
            dependencies: [
                "AtelierConsole",
                "AtelierAPI",
                "AtelierDatabase",
                "AtelierAPITestSupport",
                "AtelierAccounts",
                "AtelierQueue",
                "AtelierTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            exclude: ["Browser"]
        ),
        .testTarget(
            name: "AtelierHandlersTests",
            dependencies: [
                "AtelierHandlers",
                "AtelierWorker",
                "AtelierAPI",
                "AtelierAPITestSupport",
                "AtelierTestSupport",
                "AtelierImaging",
                "AtelierVision",
            ]
        ),
        // Runnable documentation, one task per file (README "Examples"): each example runs against the
        // real server, worker and database, e.g. ./ops/test --filter AtelierExamples.CancelARunningJob
        .testTarget(
            name: "AtelierExamples",
            dependencies: [
                "AtelierAPI",
                "AtelierHandlers",
                "AtelierAPITestSupport",
                "AtelierJobs",
                "AtelierQueue",
                "AtelierDatabase",
                "AtelierWorker",
                "AtelierStorage",
                "AtelierImaging",
                "AtelierEmbeddings",
                "AtelierTestSupport",
                "CAtelierColorFixtures",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
