import ArgumentParser
import AtelierAPI
import AtelierQueue
import Foundation

struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Queue statistics; pause and resume queues.",
        subcommands: [Stats.self, Pause.self, Resume.self])

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Jobs by kind and state, queue depth, oldest waiting job, recent throughput.")

        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON for scripts.") var json = false
        @Option(help: "Minutes of throughput history.") var minutes = 5

        func run() async throws {
            let (json, minutes) = (self.json, self.minutes)
            try await withQueue(database) { queue in
                let stats = try await queue.stats(minutes: minutes)
                if json {
                    JSONOutput.print(try JSONSerialization.jsonObject(with: try QueueStatsView(stats).json()))
                    return
                }
                let states = JobState.allCases
                var byKind = Table("KIND", "QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED")
                let kinds = Array(Set(stats.counts.map(\.kind))).sorted()
                for kind in kinds {
                    byKind.add(row: [kind] + states.map { state in
                        String(stats.counts.first { $0.kind == kind && $0.state == state }?.count ?? 0)
                    })
                }
                say(kinds.isEmpty ? "no jobs" : byKind.render())
                say()
                var queues = Table("QUEUE", "STATUS", "READY", "SCHEDULED", "RUNNING", "OLDEST READY")
                for q in stats.queues {
                    queues.add(q.queue, q.paused ? "paused" : "active", String(q.ready), String(q.scheduled), String(q.running),
                               q.ready == 0 ? "-" : DurationText.format(seconds: q.oldestReadyAgeSeconds))
                }
                if !stats.queues.isEmpty {
                    say(queues.render())
                    say()
                }
                let formatter = DateFormatter()
                formatter.dateFormat = "HH:mm"
                var throughput = Table("MINUTE", "SUCCEEDED", "FAILED")
                for minute in stats.throughput {
                    throughput.add(formatter.string(from: minute.minute), String(minute.succeeded), String(minute.failed))
                }
                say("finished per minute (last \(minutes)):")
                say(throughput.render())
            }
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop workers from claiming jobs of a queue (running jobs finish; enqueueing still works).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Queue name.") var queue = "default"

        func run() async throws {
            let name = queue
            try await withQueue(database) { queue in
                try await queue.pause(queue: name, actor: OperatorIdentity.cli)
                say("paused queue \(name)")
            }
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let workers claim jobs of a queue again.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Queue name.") var queue = "default"

        func run() async throws {
            let name = queue
            try await withQueue(database) { queue in
                try await queue.resume(queue: name, actor: OperatorIdentity.cli)
                say("resumed queue \(name)")
            }
        }
    }
}
