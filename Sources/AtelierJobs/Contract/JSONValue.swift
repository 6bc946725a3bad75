import Foundation

/// Any JSON value: the options a client sends with a job before its kind reads them, and JSON
/// passed through unread (a job's result in a view, a document's metadata). Whole numbers stay
/// whole (`integer`), so what passes through comes out as it went in.
package enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode(JSONObject.self)) }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The JSON text `data` holds; throws when it is not JSON.
    package static func parse(_ data: some DataProtocol) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(data))
    }

    /// The JSON object `data` holds; nil when it is not JSON or not an object.
    package static func parseObject(_ data: some DataProtocol) -> JSONObject? {
        (try? parse(data))?.object
    }

    package var isNull: Bool { self == .null }

    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    package var object: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    package var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    package var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// A number, whole or not (never a boolean).
    package var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    /// A whole number (`250` or `250.0`), nil for anything else.
    package var integer: Int? {
        switch self {
        case .integer(let i): return Int(exactly: i)
        case .number(let d): return Int(exactly: d)
        default: return nil
        }
    }

    /// Where a NUL character sits in this value (keys included), as `options.a[2].b`; nil if
    /// nowhere. PostgreSQL's `text` and `jsonb` cannot hold U+0000.
    package func nulPath(at path: String) -> String? {
        switch self {
        case .string(let text):
            return text.utf8.contains(0) ? path : nil
        case .object(let object):
            for (key, inner) in object {
                if key.utf8.contains(0) { return path }
                if let found = inner.nulPath(at: path + "." + key) { return found }
            }
            return nil
        case .array(let array):
            for (index, inner) in array.enumerated() {
                if let found = inner.nulPath(at: "\(path)[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// The value as a short text for messages (`swirl`, `5`, `true`, `{…}`).
    package var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .integer(let i): return String(i)
        case .number(let d): return String(d)
        case .string(let s): return s
        case .array: return "[…]"
        case .object: return "{…}"
        }
    }
}

/// A JSON object: a job's options, a payload before it is typed.
package typealias JSONObject = [String: JSONValue]

/// JSON as the contracts write it: keys sorted, `/` not escaped (`result_blob` paths read as paths).
package enum ContractJSON {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value`'s JSON text.
    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// `T` from JSON text.
    package static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}
