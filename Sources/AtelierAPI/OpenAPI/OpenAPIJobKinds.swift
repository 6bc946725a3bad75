import AtelierImaging
import AtelierVision

/// The parts of ``OpenAPIDocument`` that depend on which job kinds this server accepts (the
/// diagnostic ones only when the server is configured with them): `POST /v1/jobs`'s JSON body,
/// one schema per served kind, each as strict as that kind's own validation, so that a request
/// the document calls valid is one the server takes.
enum OpenAPIJobKinds {
    /// Options any kind takes: names other than the reserved `input`, values that are not
    /// objects holding `input` either. (Kinds that read no option ignore them.)
    static let freeOptions = ##"{ $ref: "#/components/schemas/JobOptions" }"##

    static func options(required: [String] = [], _ properties: [String: String]) -> String {
        var lines = ["type: object"]
        if !required.isEmpty { lines.append("required: [\(required.joined(separator: ", "))]") }
        lines.append(##"additionalProperties: { $ref: "#/components/schemas/OptionValue" }"##)
        lines.append(##"propertyNames: { $ref: "#/components/schemas/OptionName" }"##)
        lines.append("properties:")
        for (name, schema) in properties.sorted(by: { $0.key < $1.key }) { lines.append("  \(name): \(schema)") }
        return lines.joined(separator: "\n")
    }

    /// A kind's body: `{kind, image?, options?, timeout_s?, unique?}`, nothing else. An optional
    /// field the server reads as absent when it is `null` is declared so (`image` of a kind that
    /// needs none; an index job's `collection`, `source_key`, `metadata` and `caption`; every
    /// kind's `timeout_s` and `unique`, and `unique`'s `key` and `period_s`).
    static func body(_ kind: String, image: Bool, options: String = freeOptions, optionsRequired: Bool = false) -> String {
        let required = ["kind"] + (image ? ["image"] : []) + (optionsRequired ? ["options"] : [])
        let optionLines = options.split(separator: "\n", omittingEmptySubsequences: false)
        let optionBlock = optionLines.count == 1 ? "  options: \(options)" : (["  options:"] + optionLines.map { "    \($0)" }).joined(separator: "\n")
        return """
            type: object
            required: [\(required.joined(separator: ", "))]
            additionalProperties: false
            properties:
              kind: { const: \(kind) }
              image: \(image ? ##"{ $ref: "#/components/schemas/Base64Image" }"## : ##"{ oneOf: [{ $ref: "#/components/schemas/Base64Image" }, { type: "null" }], description: "optional; null is the same as none" }"##)
              timeout_s: { oneOf: [{ $ref: "#/components/schemas/JobTimeout" }, { type: "null" }] }
              unique: { oneOf: [{ $ref: "#/components/schemas/JobUnique" }, { type: "null" }] }
            \(optionBlock)
            """
    }

    /// Kinds a multipart form (an image and nothing else required) may name.
    static let imageKinds = ["analysis", "caption", "echo", "index", "noop", "upload"]

    /// Kind → its JSON body schema, as YAML at indentation 0.
    static let json: [String: String] = [
        "noop": body("noop", image: false),
        "fail": body("fail", image: false, options: options(["message": "{ type: string, maxLength: 2000 }", "permanent": "{ type: boolean }"])),
        "sleep": body("sleep", image: false, options: options(required: ["ms"], ["ms": "{ type: integer, minimum: 0, maximum: 3600000 }"]),
                      optionsRequired: true),
        "echo": body("echo", image: true),
        "caption": body("caption", image: true),
        "upload": body("upload", image: true),
        "analysis": body("analysis", image: true, options: options(["advisor": ##"{ $ref: "#/components/schemas/AdvisorChoice" }"##])),
        "stylize": body("stylize", image: true, options: options(required: ["style_id"], [
            "style_id": "{ type: string, enum: [\(StyleID.allCases.map(\.rawValue).joined(separator: ", "))] }",
            "output": ##"{ type: string, enum: [jpeg, png], description: "the result's format (default jpeg)" }"##,
            "params": ##"{ $ref: "#/components/schemas/StyleParams" }"##,
            "warp": ##"{ $ref: "#/components/schemas/Warp" }"##,
        ]), optionsRequired: true),
        "index": #"""
            description: "an index job: a text, or an image with an optional caption (the provider's when absent)"
            oneOf:
              - type: object
                required: [kind, options]
                additionalProperties: false
                properties:
                  kind: { const: index }
                  timeout_s: { oneOf: [{ $ref: "#/components/schemas/JobTimeout" }, { type: "null" }] }
                  unique: { oneOf: [{ $ref: "#/components/schemas/JobUnique" }, { type: "null" }] }
                  options:
                    type: object
                    required: [text]
                    additionalProperties: false
                    properties:
                      text: { type: string, minLength: 1, maxLength: 8000, pattern: "\\S" }
                      collection: { oneOf: [{ $ref: "#/components/schemas/CollectionName" }, { type: "null" }] }
                      source_key: { oneOf: [{ $ref: "#/components/schemas/SourceKey" }, { type: "null" }] }
                      metadata: { oneOf: [{ $ref: "#/components/schemas/Metadata" }, { type: "null" }] }
              - type: object
                required: [kind, image]
                additionalProperties: false
                properties:
                  kind: { const: index }
                  image: { $ref: "#/components/schemas/Base64Image" }
                  timeout_s: { oneOf: [{ $ref: "#/components/schemas/JobTimeout" }, { type: "null" }] }
                  unique: { oneOf: [{ $ref: "#/components/schemas/JobUnique" }, { type: "null" }] }
                  options:
                    type: object
                    additionalProperties: false
                    properties:
                      caption: { type: [string, "null"], maxLength: 2000 }
                      collection: { oneOf: [{ $ref: "#/components/schemas/CollectionName" }, { type: "null" }] }
                      source_key: { oneOf: [{ $ref: "#/components/schemas/SourceKey" }, { type: "null" }] }
                      metadata: { oneOf: [{ $ref: "#/components/schemas/Metadata" }, { type: "null" }] }
            """#,
    ]

    /// The document for a server that accepts `kinds`: the JSON body's `oneOf` names the served
    /// kinds' schemas, which are added to the components; the multipart `kind` lists the served
    /// kinds that take an image.
    static func render(_ template: String, kinds: [String]) -> String {
        let served = kinds.filter { json[$0] != nil }.sorted()
        let refs = served.map { "                - $ref: \"#/components/schemas/NewJob_\($0)\"" }.joined(separator: "\n")
        let schemas = served.map { kind in
            "    NewJob_\(kind):\n" + json[kind]!.split(separator: "\n").map { "      \($0)" }.joined(separator: "\n")
        }.joined(separator: "\n")
        return template
            .replacingOccurrences(of: "{{JOB_KINDS}}", with: served.joined(separator: ", "))
            .replacingOccurrences(of: "{{IMAGE_KINDS}}", with: imageKinds.filter(kinds.contains).joined(separator: ", "))
            .replacingOccurrences(of: "                - {{JOB_BODY_REFS}}", with: refs)
            .replacingOccurrences(of: "    {{JOB_BODY_SCHEMAS}}: {}", with: schemas)
            .replacingOccurrences(of: "{{ALL_KINDS}}", with: kinds.sorted().joined(separator: ", "))
            .replacingOccurrences(of: "{{ADVISORS}}", with: Advisor.all.map(\.id).joined(separator: "|"))
    }
}
