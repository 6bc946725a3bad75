import Foundation

/// Times an operation the way the peer scripts do — one warm-up, then `runs` timed runs — and
/// prints one JSON line: `op`, `threads`, `runs`, `median_ms`, `min_ms`, `width`, `height`, `note`.
struct BenchTimer {
    let threads: Int
    let runs: Int

    func measure<T>(_ op: String, note: String, size: (T) -> (Int, Int), _ body: () throws -> T) rethrows {
        var last = try body()
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            last = try body()
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        times.sort()
        let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        let (width, height) = size(last)
        var report = BenchReport(scenario: op)
        report["op"] = op
        report["threads"] = threads
        report["runs"] = runs
        report["median_ms"] = (median * 10).rounded() / 10
        report["min_ms"] = ((times.first ?? 0) * 10).rounded() / 10
        report["width"] = width
        report["height"] = height
        report["note"] = note
        report.print()
    }
}
