import AtelierJobs
import AtelierQueue
import AtelierVision
import Foundation

/// A job kind the API accepts: its contract (``JobContract``: what a request must carry and the
/// payload it becomes) and how its jobs are queued. The executable registers the kinds whose
/// handlers exist; the API never depends on the worker module.
package struct JobKind: Sendable {
    package var name: String
    package var image: ImageRule
    package var queue: String
    package var priority: Int
    package var maxAttempts: Int
    /// The contract's check: a request's options and stored image → the payload's JSON text.
    let payload: @Sendable (_ options: JSONObject, _ input: BlobInput?) throws -> String

    package init<Contract: JobContract>(_ contract: Contract, queue: String = "default", priority: Int = Priority.normal,
                                        maxAttempts: Int = 5) {
        name = Contract.kind
        image = Contract.image
        self.queue = queue
        self.priority = priority
        self.maxAttempts = maxAttempts
        payload = { options, input in try ContractJSON.text(try contract.payload(options: options, input: input)) }
    }

    /// Options given as JSON text with no image (a cron schedule's, `atelier schedules add`),
    /// checked by the contract as a request's are: the payload's JSON text to store.
    package func checkedPayload(json: String) throws(APIError) -> String {
        if image == .required { throw APIError.validation("a \(name) job needs an uploaded image, which a schedule cannot give", field: "kind") }
        guard let options = try? JSONDecoder().decode(JSONObject.self, from: Data(json.utf8)) else {
            throw APIError.validation("the payload must be a JSON object", field: "payload")
        }
        do {
            return try payload(options, nil)
        } catch let error as JobOptionsError {
            throw APIError.validation(error)
        } catch {
            throw APIError.validation("the payload was refused: \(error)", field: "payload")
        }
    }
}

/// The kinds this API process accepts, by name.
package struct JobKindCatalog: Sendable {
    private var kinds: [String: JobKind] = [:]

    package init(_ kinds: [JobKind] = []) {
        for kind in kinds { self.kinds[kind.name] = kind }
    }

    package subscript(name: String) -> JobKind? { kinds[name] }
    package var names: [String] { kinds.keys.sorted() }

    /// `stylize` (docs/clients.md §3). A request with a `style_id` and no `kind` is one.
    package static let stylize = JobKind(StylizeJob())
    /// `caption`: interactive priority, so it overtakes batch work (the caption app waits for it).
    package static let caption = JobKind(CaptionJob(), priority: Priority.interactive, maxAttempts: 2)
    /// `upload`: an image kept for later work (Mondrian's `auto_analyze=false`).
    package static let upload = JobKind(UploadJob(), priority: Priority.interactive, maxAttempts: 3)
    /// `analysis`: the advisors' review of a photo.
    package static let analysis = JobKind(AnalysisJob(roster: Advisor.all.map(\.id)), maxAttempts: 3)
    /// `index`: a text or an image embedded for search.
    package static let index = JobKind(IndexJob())

    /// The diagnostic kinds every worker runs: `noop`, `sleep {ms}`, `fail {message?, permanent?}`,
    /// `echo` (returns its input image unchanged as the result, proving the blob path end to end)
    /// and `crash {after_ms?}` (SIGKILLs its worker process: a poison pill).
    package static let diagnostics: [JobKind] = [
        JobKind(NoopJob()), JobKind(SleepJob()), JobKind(FailJob(), maxAttempts: 3), JobKind(EchoJob()), JobKind(CrashJob()),
    ]
}
