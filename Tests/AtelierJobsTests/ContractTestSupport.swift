import AtelierJobs
import Foundation
import XCTest

/// Options as a client writes them, the payload text the API stores, and rows as the code
/// before AtelierJobs wrote them (PostgreSQL's `jsonb` text: `{"a": 1, "b": 2}`).
enum Contract {
    static let input = BlobInput(blob: "jobs/0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60/input.png", format: "png",
                                 contentType: "image/png", bytes: 2345)
    /// `input` as every version of the API has written it.
    static let storedInput = #"{"blob": "jobs/0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60/input.png", "bytes": 2345, "format": "png", "content_type": "image/png"}"#

    static func options(_ json: String) throws -> JSONObject {
        try XCTUnwrap(JSONValue.parseObject(Data(json.utf8)), json)
    }

    /// What the API stores for a payload.
    static func text(_ value: some Encodable) throws -> String {
        try ContractJSON.text(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try ContractJSON.decode(T.self, from: json)
    }

    /// The field a refusal names, or nil when `work` succeeds.
    static func refusal(_ work: () throws -> Void) -> JobOptionsError? {
        do {
            try work()
            return nil
        } catch let error as JobOptionsError {
            return error
        } catch {
            XCTFail("not a JobOptionsError: \(error)")
            return nil
        }
    }
}
