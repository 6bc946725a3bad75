import AtelierJobs
import AtelierQueue
import Foundation

/// One kind's limits as JSON: `GET|PUT /v1/admin/limits` answer it and `atelier limits list
/// --json` prints it. A limit not set is left out; `rate` is `{"count", "period_s"}`.
package struct KindLimitsView: Encodable {
    struct Rate: Encodable {
        var count: Int
        var period_s: Double
    }

    var kind: String
    var concurrency: Int?
    var per_owner_concurrency: Int?
    var rate: Rate?
    var timeout_s: Double?
    var updated_at: Date?
    var updated_by: String?

    package init(_ limits: KindLimits) {
        kind = limits.kind
        concurrency = limits.concurrency
        per_owner_concurrency = limits.ownerConcurrency
        rate = limits.rate.map { Rate(count: $0.count, period_s: $0.period.seconds) }
        timeout_s = limits.timeout?.seconds
        updated_at = limits.updatedAt
        updated_by = limits.updatedBy
    }

    /// A kind left with no limit.
    package init(kind: String) {
        self.kind = kind
    }

    /// The fields a `PUT` body may have.
    static let fields = ["kind", "concurrency", "per_owner_concurrency", "rate", "timeout_s"]

    /// A `PUT` body as the change it asks for: the kind's limits become exactly those given (a
    /// field left out or null is no limit).
    static func change(from body: JSONObject, kinds: JobKindCatalog) throws(APIError) -> KindLimitsChange {
        if let field = JSONBody.unknownField(in: body, allowed: fields) {
            throw APIError.validation("unknown field '\(field.prefix(64))'; the fields are \(fields.joined(separator: ", "))", field: field)
        }
        guard let kind = body["kind"]?.string, !kind.isEmpty else {
            throw APIError.validation("kind is required: the job kind the limits apply to", field: "kind")
        }
        guard kinds[kind] != nil else {
            throw APIError.validation("unknown kind '\(kind.prefix(64))'; one of: \(kinds.names.joined(separator: ", "))", field: "kind")
        }
        var change = KindLimitsChange(kind: kind, concurrency: .remove, ownerConcurrency: .remove, rate: .remove, timeout: .remove)
        for (field, key) in [("concurrency", \KindLimitsChange.concurrency), ("per_owner_concurrency", \.ownerConcurrency)] {
            guard let value = body[field], value != .null else { continue }
            guard let number = value.integer, (1...KindLimits.maxConcurrency).contains(number) else {
                throw APIError.validation("\(field) must be a whole number within 1…\(KindLimits.maxConcurrency), or null", field: field)
            }
            change[keyPath: key] = .set(number)
        }
        if let value = body["rate"], value != .null {
            let refusal = APIError.validation(
                "rate is {\"count\": 1…1000000, \"period_s\": 0.001…86400} (count starts per period), or null", field: "rate")
            guard let object = value.object, JSONBody.unknownField(in: object, allowed: ["count", "period_s"]) == nil,
                  let count = object["count"]?.integer, let seconds = object["period_s"]?.double,
                  seconds >= 0.001, seconds <= 86_400 else { throw refusal }
            do throws(QueueError) {
                change.rate = .set(try RateLimit(count: count, period: .milliseconds(Int64((seconds * 1000).rounded()))))
            } catch {
                throw refusal
            }
        }
        if let value = body["timeout_s"], value != .null {
            guard let seconds = value.double, seconds >= 0.001, seconds <= KindLimits.maxTimeout.seconds else {
                throw APIError.validation("timeout_s must be a number of seconds within 0.001…86400, or null", field: "timeout_s")
            }
            change.timeout = .set(.milliseconds(Int64((seconds * 1000).rounded())))
        }
        return change
    }
}

/// `GET /v1/admin/limits`: every kind's limits.
struct KindLimitsListView: Encodable {
    var limits: [KindLimitsView]
}
