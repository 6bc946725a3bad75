import Foundation
import PostgresNIO

extension JobQueue {
    /// Records the outcomes of many attempts in one statement and returns the ids that landed.
    ///
    /// Fencing: an outcome lands only if the job is still `running` under `worker`'s lease for
    /// that same attempt. A worker whose lease was rescued (it looked dead, or its lease expired)
    /// and whose job was claimed again cannot overwrite anything: its completion is refused.
    ///
    /// The statement is the SQL function `atelier_complete` (`Sources/AtelierQueue/SQL/`):
    /// outcomes, follow-ups of successes and events together.
    package func complete(_ completions: [Completion], worker: String) async throws -> Set<UUID> {
        guard !completions.isEmpty else { return [] }
        let statement = CompleteStatement(columns: try CompletionColumns(completions), worker: worker)
        var landed = Set<UUID>()
        for try await id in try await client.execute(statement, logger: logger) {
            landed.insert(id)
        }
        return landed
    }

    /// Records `completions` as ``complete(_:worker:)`` does, then claims what `claim` asks for,
    /// in one statement and one transaction (`atelier_complete_and_claim`): one
    /// round trip and one commit where two statements would take two. The claim runs after the
    /// completions, in a snapshot of its own, so it sees the slots and limits they freed; if
    /// either part fails, neither is written.
    ///
    /// `claim.worker` is the lease owner the completions are fenced on.
    package func complete(_ completions: [Completion], thenClaim claim: ClaimRequest)
        async throws -> (landed: Set<UUID>, claimed: [ClaimedJob])
    {
        guard !claim.isEmpty else { return (try await complete(completions, worker: claim.worker), []) }
        let statement = CompleteAndClaimStatement(columns: try CompletionColumns(completions), claim: claim,
                                                  fairShare: fairShare)
        var landed = Set<UUID>()
        var claimed: [ClaimedJob] = []
        for try await row in try await client.execute(statement, logger: logger) {
            switch row {
            case .completed(let ids): landed.formUnion(ids)
            case .claimed(let job): claimed.append(job)
            }
        }
        return (landed, claimed)
    }
}

/// Completions as the columns `atelier_complete` takes: one array per field, aligned.
private struct CompletionColumns {
    var ids: [UUID] = [], attempts: [Int] = [], outcomes: [String] = []
    var results: [String] = [], errors: [String] = [], delays: [Double] = []

    init(_ completions: [Completion]) throws {
        for completion in completions {
            ids.append(completion.jobID)
            attempts.append(completion.attempt)
            outcomes.append(completion.outcome.code)
            switch completion.outcome {
            case .succeeded(let result):
                if let result { try JobQueue.requireJSONObject(result, what: "job result") }
                results.append(result ?? ""); errors.append(""); delays.append(0)
            case .retry(let error, let delay), .snoozed(let error, let delay):
                results.append(""); errors.append(error); delays.append(max(0, delay.seconds))
            case .failed(let error, let result):
                if let result { try JobQueue.requireJSONObject(result, what: "failure result") }
                results.append(result ?? ""); errors.append(error); delays.append(0)
            case .cancelled(let error):
                results.append(""); errors.append(error); delays.append(0)
            case .released:
                results.append(""); errors.append(""); delays.append(0)
            }
        }
    }

    func bind(to bindings: inout PostgresBindings) {
        bindings.append(ids)
        bindings.append(attempts)
        bindings.append(outcomes)
        bindings.append(results)
        bindings.append(errors)
        bindings.append(delays)
    }
}

/// The completion, prepared once per connection: it is the hottest statement a busy worker
/// sends, and parsing and planning it each time cost more than running it.
private struct CompleteStatement: PostgresPreparedStatement {
    static let name = "atelier_complete_v6"
    static let sql = """
        SELECT atelier_complete($1::uuid[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::float8[], $7)
        """

    typealias Row = UUID

    var columns: CompletionColumns
    var worker: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        columns.bind(to: &bindings)
        bindings.append(worker)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> UUID {
        try row.decode(UUID.self)
    }
}

/// One row of `atelier_complete_and_claim`: the first carries the ids that landed, the rest are
/// the jobs claimed.
private enum CompleteAndClaimRow {
    case completed([UUID])
    case claimed(ClaimedJob)
}

private struct CompleteAndClaimStatement: PostgresPreparedStatement {
    static let name = "atelier_complete_and_claim_v1"
    static let sql = """
        SELECT * FROM atelier_complete_and_claim($1::uuid[], $2::integer[], $3::text[], $4::text[], $5::text[],
                                                 $6::float8[], $7, $8::text[], $9::text[], $10::integer,
                                                 $11::bigint, $12::bigint, $13::boolean)
        """

    typealias Row = CompleteAndClaimRow

    var columns: CompletionColumns
    var claim: ClaimRequest
    var fairShare: Bool

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 13)
        columns.bind(to: &bindings)
        claim.bind(to: &bindings, fairShare: fairShare)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> CompleteAndClaimRow {
        let cells = row.makeRandomAccess()
        if let ids = try cells[0].decode([UUID]?.self) { return .completed(ids) }
        return .claimed(try ClaimedJob(claimRow: cells, from: 1, worker: claim.worker))
    }
}
