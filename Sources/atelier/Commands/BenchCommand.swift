import ArgumentParser
import AtelierDatabase
import AtelierEmbeddings
import AtelierImaging
import AtelierQueue
import Foundation
import Logging

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks. Each prints one JSON line per result; ops/bench/queue runs them beside the peers.",
        subcommands: [QueueBenchCommand.self, ImageBenchCommand.self, EmbedBenchCommand.self, SearchBenchCommand.self,
                      HTTPFloorCommand.self])
}

struct QueueBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Queue benchmarks on an empty database (it is migrated first; use a scratch database).",
        subcommands: [Drain.self, Sustained.self, Pickup.self, Crash.self, ClaimLatency.self, Enqueue.self, NoisyNeighbour.self, Limits.self])

    struct Drain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drain N pre-inserted no-op jobs with W worker processes.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Jobs to insert.") var jobs = 50_000
        @Option(help: "Worker processes.") var workers = 2
        @Option(help: "Concurrency per worker process.") var concurrency = 16

        func run() async throws {
            try await runBenchmark(database) { try await $0.drain(jobs: jobs, workers: workers, concurrency: concurrency).print() }
        }
    }

    struct Sustained: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Concurrent enqueue (batches) and dequeue for a fixed time.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Length of the window in seconds.") var seconds = 30
        @Option(help: "Worker processes.") var workers = 2
        @Option(help: "Concurrency per worker process.") var concurrency = 16
        @Option(help: "Jobs per enqueue call.") var batch = 10
        @Option(help: "Concurrent enqueuers.") var producers = 2

        func run() async throws {
            try await runBenchmark(database, connections: producers + 2) {
                try await $0.sustained(seconds: seconds, workers: workers, concurrency: concurrency,
                                       batch: batch, producers: producers).print()
            }
        }
    }

    struct Pickup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enqueue → handler-start latency of single jobs to an idle worker.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Jobs to send.") var jobs = 1_000
        @Option(name: .customLong("interval-ms"), help: "Milliseconds between jobs.") var intervalMilliseconds = 20
        @Option(help: "Worker processes.") var workers = 1
        @Option(help: "Concurrency per worker process.") var concurrency = 16

        func run() async throws {
            try await runBenchmark(database) {
                try await $0.pickup(jobs: jobs, interval: .milliseconds(intervalMilliseconds),
                                    workers: workers, concurrency: concurrency).print()
            }
        }
    }

    struct Crash: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Seconds from SIGKILL of a worker to its job running again elsewhere.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Worker processes (at least 2).") var workers = 2

        func run() async throws {
            guard workers >= 2 else { throw ValidationError("--workers must be at least 2: one is killed") }
            try await runBenchmark(database) { try await $0.crash(workers: workers).print() }
        }
    }

    struct Enqueue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Jobs inserted per second, no workers, for each batch size × number of concurrent producers.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Jobs to insert per shape (rounded down to whole batches per producer).") var jobs = 20_000
        @Option(help: "Comma-separated jobs per enqueue call (1 uses the single-job call).") var batches = "1,10,100"
        @Option(help: "Comma-separated numbers of concurrent producers.") var producers = "1,4,16"

        func run() async throws {
            let batchSizes = try Self.counts(batches, option: "--batches")
            let producerCounts = try Self.counts(producers, option: "--producers")
            try await runBenchmark(database, connections: producerCounts.max()! + 2) { scenarios in
                for report in try await scenarios.enqueue(jobs: jobs, batches: batchSizes, producers: producerCounts) { report.print() }
            }
        }

        private static func counts(_ text: String, option: String) throws -> [Int] {
            let counts = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }),
                  counts.count == text.split(separator: ",").count else {
                throw ValidationError("\(option) takes positive whole numbers separated by commas, got '\(text)'")
            }
            return counts
        }
    }

    struct NoisyNeighbour: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "noisy-neighbour",
            abstract: "One owner's backlog, another's jobs arriving: the newcomer's waits (ATELIER_FAIR_SHARE on or off).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Owner A's jobs, enqueued first.") var backlog = 20_000
        @Option(help: "Owner B's jobs, enqueued one at a time once a tenth of A's are done.") var newcomers = 100
        @Option(name: .customLong("job-ms"), help: "Milliseconds each job sleeps.") var jobMilliseconds = 20
        @Option(name: .customLong("interval-ms"), help: "Milliseconds between B's jobs.") var intervalMilliseconds = 50
        @Option(help: "Worker processes.") var workers = 2
        @Option(help: "Concurrency per worker process.") var concurrency = 16

        func run() async throws {
            try await runBenchmark(database) {
                try await $0.noisyNeighbour(backlog: backlog, newcomers: newcomers, jobMilliseconds: jobMilliseconds,
                                            interval: .milliseconds(intervalMilliseconds), workers: workers,
                                            concurrency: concurrency).print()
            }
        }
    }

    struct Limits: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "limits",
            abstract: "One kind under a concurrency and a rate limit across worker processes: the highest concurrency seen, the rate.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Jobs, enqueued first.") var jobs = 1_000
        @Option(name: .customLong("job-ms"), help: "Milliseconds each job sleeps.") var jobMilliseconds = 60
        @Option(name: .customLong("limit"), help: "The kind's concurrency limit, all workers together.") var concurrencyLimit = 4
        @Option(help: "The kind's rate limit, N/PERIOD.") var rate = "50/s"
        @Option(help: "Worker processes.") var workers = 2
        @Option(help: "Concurrency per worker process.") var concurrency = 16

        func run() async throws {
            let rate = try RateLimit(parsing: self.rate)
            try await runBenchmark(database) {
                try await $0.limits(jobs: jobs, jobMilliseconds: jobMilliseconds, concurrencyLimit: concurrencyLimit, rate: rate,
                                    workers: workers, concurrency: concurrency).print()
            }
        }
    }

    struct ClaimLatency: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "claim-latency", abstract: "Claim latency as the backlog grows to --queued jobs.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Largest backlog; measured at 1k, 10k, 100k, … up to this.") var queued = 1_000_000
        @Option(help: "Claims timed at each depth.") var samples = 500

        func run() async throws {
            let depths = sequence(first: 1_000) { $0 * 10 }.prefix { $0 <= queued }
            try await runBenchmark(database) { scenarios in
                for report in try await scenarios.claimLatency(depths: Array(depths), samples: samples) { report.print() }
            }
        }
    }
}

/// Migrates the (scratch) database, then runs `body` with the scenarios bound to it.
private func runBenchmark(_ options: DatabaseOptions, connections: Int = 4,
                          _ body: @Sendable (QueueScenarios) async throws -> Void) async throws {
    let settings = Settings()
    try settings.bootstrapLogging(fallback: .warning)
    do {
        let url = try settings.databaseURL(flag: options.databaseURL)
        var logger = Logger(label: "atelier.bench")
        logger.logLevel = .error
        try await JobQueue.withQueue(url: url, applicationName: "atelier-bench", maxConnections: connections,
                                     fairShare: try settings.fairShare(), logger: logger) { queue in
            _ = try await Migrator(database: queue.database, lines: SchemaLines.all).migrate()
            try await body(QueueScenarios(queue: queue, url: url))
        }
    } catch let error as BenchError {
        FileHandle.standardError.write(Data("atelier bench: \(error)\n".utf8))
        throw ExitCode.failure
    } catch {
        throw fail(error)
    }
}

struct ImageBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "The image pipeline on one photo: decode, decode→2048→JPEG, each style, the whole stylize job (no database).")
    @Option(help: "A JPEG photo (ops/bench/image uses a 13 MP one).") var photo: String
    @Option(help: "Cores the pixel kernels may use.") var threads = 2
    @Option(help: "Timed runs per measurement (after one warm-up).") var runs = 7
    @Option(help: "Comma-separated: decode, pipeline, style, stylize, color, variant.") var ops = "decode,pipeline,style,stylize"
    @Option(help: "Comma-separated styles (default all).") var styles = StyleID.allCases.map(\.rawValue).joined(separator: ",")
    @Option(help: "The photo tagged with a wide-gamut profile, for the color ops (ops/bench/image makes a Display P3 one).")
    var colorPhoto: String?

    func run() throws {
        guard let data = FileManager.default.contents(atPath: photo) else { throw ValidationError("cannot read \(photo)") }
        var tagged: [UInt8]?
        if let colorPhoto {
            guard let bytes = FileManager.default.contents(atPath: colorPhoto) else { throw ValidationError("cannot read \(colorPhoto)") }
            tagged = [UInt8](bytes)
        }
        let chosen = try styles.split(separator: ",").map { name -> StyleID in
            guard let style = StyleID(rawValue: String(name)) else { throw ValidationError("unknown style \(name)") }
            return style
        }
        try ImageBench(photo: [UInt8](data), colorPhoto: tagged, threads: max(1, threads), runs: max(1, runs))
            .run(styles: chosen, ops: Set(ops.split(separator: ",").map(String.init)))
    }
}

struct EmbedBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Sentences per second of the MiniLM encoder for batches of 1, 8 and 64 short sentences (no database).")
    @Option(help: "The model folder (default $ATELIER_MODEL_DIR).") var model: String?
    @Option(help: "Comma-separated batch sizes.") var batches = "1,8,64"
    @Option(help: "Sentences embedded per measurement.") var sentences = 256
    @Option(help: "Timed runs per batch size (after one warm-up).") var runs = 5
    @Option(help: "Cores one embedding call may use (the kernels' pool; OpenBLAS on the portable path).") var threads = 2

    func run() throws {
        guard let directory = model ?? ProcessInfo.processInfo.environment["ATELIER_MODEL_DIR"] else {
            throw ValidationError("set ATELIER_MODEL_DIR or --model to the MiniLM folder")
        }
        MiniLMEncoder.limitThreads(to: threads)
        let encoder = try MiniLMEncoder(modelDirectory: URL(fileURLWithPath: directory))
        let texts = EmbedBenchCommand.sentences(sentences)
        for size in batches.split(separator: ",").compactMap({ Int($0) }) {
            BenchTimer(threads: threads, runs: runs).measure("embed:batch_\(size)", note: "\(texts.count) short sentences in batches of \(size); \(encoder.kernel) kernel, threads \(threads)",
                          size: { _ in (texts.count, size) }) {
                for start in stride(from: 0, to: texts.count, by: size) {
                    _ = encoder.embed(Array(texts[start..<min(texts.count, start + size)]), batchSize: size)
                }
            }
        }
    }

    /// Short photo-caption-like sentences (8–16 words), the same every run.
    static func sentences(_ count: Int) -> [String] {
        let subjects = ["A red sunset", "A grey cat", "The old bridge", "Two children", "A busy street", "Fresh bread", "A snowy peak", "The harbour"]
        let verbs = ["glows over", "sleeps beside", "stretches across", "play near", "fills with", "cools on", "rises above", "shines under"]
        let objects = ["the calm sea at dusk", "a sunny window in spring", "the river in morning fog", "the fountain in the park",
                       "taxis and neon signs", "a wooden rack in the bakery", "the quiet valley", "the evening lights"]
        return (0..<count).map { i in "\(subjects[i % 8]) \(verbs[(i / 8) % 8]) \(objects[(i / 64) % 8]), photo \(i)." }
    }
}

struct SearchBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Query embed + pgvector search latency over N stored vectors (a scratch database; it is migrated first).")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "The model folder (default $ATELIER_MODEL_DIR).") var model: String?
    @Option(help: "Vectors to store (kept between runs on the same database).") var vectors = 100_000
    @Option(help: "Searches to time.") var samples = 300

    func run() async throws {
        guard let directory = model ?? ProcessInfo.processInfo.environment["ATELIER_MODEL_DIR"] else {
            throw ValidationError("set ATELIER_MODEL_DIR or --model to the MiniLM folder")
        }
        let encoder = try MiniLMEncoder(modelDirectory: URL(fileURLWithPath: directory))
        MiniLMEncoder.limitThreads(to: 1)
        try await runBenchmark(database, connections: 4) { scenarios in
            try await SearchBench(queue: scenarios.queue, encoder: encoder, count: vectors, samples: samples).run()
        }
    }
}

struct HTTPFloorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-floor",
        abstract: "Serve one JSON file at /job.json with Hummingbird alone (no middleware): the framework's ceiling for ops/bench/api.")
    @Option(help: "The JSON file to serve.") var file: String
    @Option(help: "An image to serve at /thumbnail.webp as well.") var image: String?
    @Option(help: "host:port to listen on.") var listen = "127.0.0.1:18082"

    func run() async throws {
        guard let json = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
            throw ValidationError("--listen must be host:port")
        }
        let picture = try image.map { path in
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
            return data
        }
        try await HTTPFloorServer(json: json, image: picture).run(host: String(listen[..<colon]), port: port)
    }
}
