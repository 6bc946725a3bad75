import ArgumentParser
import AtelierQueue
import Foundation

struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers", abstract: "List live worker processes (and ones that stopped recently).")

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Print JSON for scripts.") var json = false
    @Flag(help: "Include workers that are gone but not yet pruned.") var all = false

    func run() async throws {
        let (json, all) = (self.json, self.all)
        try await withQueue(database) { queue in
            let workers = try await queue.workers().filter { all || $0.alive }
            if json {
                JSONOutput.print(workers.map { worker -> [String: Any] in
                    ["id": worker.id, "host": worker.host, "pid": worker.pid, "queues": worker.queues, "kinds": worker.kinds,
                     "concurrency": worker.concurrency, "version": worker.version, "running": worker.running,
                     "processed": worker.processed, "alive": worker.alive,
                     "started_at": JSONOutput.time(worker.startedAt), "heartbeat_at": JSONOutput.time(worker.heartbeatAt)]
                })
                return
            }
            if workers.isEmpty {
                say("no live workers (start some with `atelier work`)")
                return
            }
            var table = Table("WORKER", "ALIVE", "QUEUES", "KINDS", "RUNNING", "PROCESSED", "UP", "HEARTBEAT")
            let now = Date()
            for worker in workers {
                table.add(worker.id, worker.alive ? "yes" : "no", worker.queues.joined(separator: ","),
                          worker.kinds.joined(separator: ","), "\(worker.running)/\(worker.concurrency)", String(worker.processed),
                          DurationText.format(seconds: now.timeIntervalSince(worker.startedAt)),
                          DurationText.format(seconds: max(0, now.timeIntervalSince(worker.heartbeatAt))) + " ago")
            }
            say(table.render())
        }
    }
}
