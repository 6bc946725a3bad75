/// An optional property that a synthesized `Encodable` writes as `null` when it has no value,
/// instead of leaving its key out: the apps' `Codable` structs declare these keys, and a client
/// tells "no value yet" from "an older server" by the `null` (docs/clients.md). Declare the
/// property `@NullWhenAbsent var finishedAt: Date?`; no hand-written `encode(to:)` is needed.
@propertyWrapper
package struct NullWhenAbsent<Value: Encodable & Sendable>: Encodable, Sendable {
    package var wrappedValue: Value?

    package init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}
