import Foundation
import AtelierQueue
import AtelierVision

extension JobKindCatalog {
    /// `analysis`: advisors review an uploaded photo; an HTML report is the result. Option
    /// `advisor`: an advisor id, `all` (default), `random`, or ids separated by commas; the API
    /// turns it into the `advisors` list the job runs, so a retry reviews with the same ones.
    public static let analysis: JobKind = {
        var kind = JobKind(name: "analysis", image: .required, priority: Priority.normal, maxAttempts: 3)
        kind.validate = { options in _ = try AdvisorChoice.resolve(options["advisor"]) }
        kind.prepare = { options in
            var options = options
            options["advisors"] = try AdvisorChoice.resolve(options.removeValue(forKey: "advisor")).map(\.id)
            return options
        }
        return kind
    }()
}

/// `id`, `all`, `random` or `a,b,c` → advisors, or a 400 naming the field and the choices.
enum AdvisorChoice {
    static func resolve(_ value: Any?) throws -> [Advisor] {
        guard let value, !(value is NSNull) else { return Advisor.all }
        guard let text = (value as? String)?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else {
            throw APIError.validation("advisor must be an advisor id, all, random, or ids separated by commas", field: "advisor")
        }
        if text == "all" { return Advisor.all }
        if text == "random" { return [Advisor.all.randomElement()!] }
        var chosen: [Advisor] = []
        for id in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !id.isEmpty {
            guard let advisor = Advisor.named(id) else {
                throw APIError.validation("unknown advisor '\(id.prefix(40))'; one of: \(Advisor.all.map(\.id).joined(separator: ", ")), all, random", field: "advisor")
            }
            if !chosen.contains(advisor) { chosen.append(advisor) }
        }
        guard !chosen.isEmpty else { throw APIError.validation("advisor names no advisor", field: "advisor") }
        return chosen
    }
}
