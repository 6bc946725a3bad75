import Dispatch
import Foundation
import Synchronization

/// Splits `0..<count` rows into one band per core and runs `body(band)` on each, in parallel.
/// Small jobs run inline: spreading a few rows over threads costs more than it saves.
enum Parallel {
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    static func rows(_ count: Int, minimumPerBand: Int = 16, _ body: (Range<Int>) -> Void) {
        let bands = min(ImagingConcurrency.cores, max(1, count / minimumPerBand))
        if bands <= 1 {
            body(0..<count)
            return
        }
        // The bands write disjoint rows of buffers the caller owns, and concurrentPerform
        // returns only when every band has: sharing `body` across threads is safe here.
        withoutActuallyEscaping(body) { body in
            let shared = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let start = count * band / bands, end = count * (band + 1) / bands
                shared.value(start..<end)
            }
        }
    }
}

struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// How many cores the pixel kernels may use at once (default: all). Benchmarks set it to
/// compare one core with all of them.
package enum ImagingConcurrency {
    private static let storage = Atomic<Int>(0)

    /// 0 (or less) means every core.
    package static func limit(to cores: Int) { storage.store(cores, ordering: .relaxed) }

    static var cores: Int {
        let limit = storage.load(ordering: .relaxed)
        return limit > 0 ? min(limit, Parallel.cores) : Parallel.cores
    }
}
