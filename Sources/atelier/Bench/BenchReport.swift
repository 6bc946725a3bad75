import Foundation

/// One benchmark result: a JSON object printed as one line on standard output, with the same
/// keys the peer scripts in `ops/bench/peers/` print, so `ops/bench/report.py` can compare them.
struct BenchReport {
    private var fields: [String: any Encodable & Sendable]

    init(scenario: String) {
        fields = ["system": "atelier", "version": AtelierVersion.current, "scenario": scenario]
    }

    subscript(key: String) -> (any Encodable & Sendable)? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    func print() {
        let object = fields.mapValues(AnyEncodable.init)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(object)) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    private struct AnyEncodable: Encodable {
        let value: any Encodable
        init(_ value: any Encodable) { self.value = value }
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }
}

/// Nearest-rank percentiles of a sample, in milliseconds rounded to 2 decimals.
struct Percentiles {
    private let sorted: [Double]

    init(_ samples: [Double]) { sorted = samples.sorted() }

    func callAsFunction(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return Self.round(sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1])
    }

    var max: Double { Self.round(sorted.last ?? .nan) }

    static func round(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}

/// Wall-clock nanoseconds since 1970 (CLOCK_REALTIME): comparable across processes on one machine,
/// which is what enqueue → handler-start latency needs.
func wallClockNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
