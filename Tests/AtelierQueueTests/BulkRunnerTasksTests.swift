@testable import AtelierQueue
import AtelierTestSupport
import Logging
import Synchronization
import XCTest

/// Background bulk runners are children of one task: cancelling it stops them, and it returns
/// only once they have ended, so a process's shutdown waits for them.
final class BulkRunnerTasksTests: XCTestCase {
    func testCancellingTheTasksWaitsForTheirRunnersToEnd() async throws {
        let tasks = BulkRunnerTasks(logger: Logger(label: "test"))
        let started = TestGate(), sawCancel = TestGate(), mayEnd = TestGate()
        let ended = Mutex(false), returned = Mutex(false)
        XCTAssertTrue(tasks.start {
            started.open()
            while !Task.isCancelled { await Task.yield() }
            sawCancel.open()
            await mayEnd.wait()   // a batch still finishing its statement
            ended.withLock { $0 = true }
        })
        let run = Task {
            await tasks.run()
            returned.withLock { $0 = true }
        }
        await started.wait()
        run.cancel()
        await sawCancel.wait()
        XCTAssertFalse(returned.withLock { $0 }, "the runner is still ending: run() waits for it")
        mayEnd.open()
        await run.value
        XCTAssertTrue(ended.withLock { $0 })
        XCTAssertFalse(tasks.start { XCTFail("started after shutdown") }, "a stopped process starts no runner")
    }

    func testFinishLetsTheRunnersEndAndThenReturns() async throws {
        let tasks = BulkRunnerTasks(logger: Logger(label: "test"))
        let count = Mutex(0)
        for _ in 0..<3 { tasks.start { count.withLock { $0 += 1 } } }
        tasks.finish()
        await tasks.run()
        XCTAssertEqual(count.withLock { $0 }, 3, "work started before finish() still runs")
    }
}
