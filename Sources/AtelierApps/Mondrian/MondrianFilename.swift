import AtelierAPI
import AtelierStorage
import Foundation

/// The name Mondrian's uploaded image goes by: `<stem>-<job id>-<tag>.<ext>`, e.g.
/// `sunset-0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60-Q2hKx0aV3mPz1sT_.jpg`. The tag is an HMAC of the
/// rest under the server's signing secret (``URLSigner/nameTag(_:)``), so the name itself is
/// the permission to load the image — the app's image views send no token — and it can be
/// neither guessed from a job id nor altered. The stem is the client's file name, reduced to
/// lower-case letters, digits and dashes (at most 32), or `photo`.
struct MondrianFilename: Equatable {
    var stem: String
    var jobID: UUID
    var fileExtension: String

    /// A safe stem from whatever file name the client sent.
    static func stem(fromClientName name: String?) -> String {
        var base = (name ?? "").split(separator: "/").last.map(String.init) ?? ""
        base = base.split(separator: "\\").last.map(String.init) ?? base
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = String(base[..<dot]) }
        var stem = ""
        for scalar in base.lowercased().unicodeScalars {
            let keep = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))
            if keep { stem.unicodeScalars.append(scalar) } else if !stem.isEmpty, !stem.hasSuffix("-") { stem.append("-") }
            if stem.count >= 32 { break }
        }
        while stem.hasSuffix("-") { stem.removeLast() }
        return stem.isEmpty ? "photo" : stem
    }

    private var unsigned: String { "\(stem)-\(jobID.uuidString.lowercased())" }

    func text(signedBy signer: URLSigner) -> String {
        "\(unsigned)-\(signer.nameTag(unsigned + "." + fileExtension)).\(fileExtension)"
    }

    /// The name's parts when its tag is genuine; nil for anything else.
    static func parse(_ text: String, signer: URLSigner) -> MondrianFilename? {
        guard text.utf8.count <= 160, let dot = text.lastIndex(of: ".") else { return nil }
        let fileExtension = String(text[text.index(after: dot)...])
        let body = text[..<dot]
        let tagLength = URLSigner.nameTagLength, idLength = 36
        guard (1...5).contains(fileExtension.count), fileExtension.allSatisfy({ $0.isASCII && $0.isLetter }),
              body.count > tagLength + idLength + 3 else { return nil }
        let tag = String(body.suffix(tagLength))
        let rest = body.dropLast(tagLength)
        guard rest.hasSuffix("-") else { return nil }
        let withID = rest.dropLast()
        guard let id = UUID(uuidString: String(withID.suffix(idLength))) else { return nil }
        let stemPart = withID.dropLast(idLength)
        guard stemPart.hasSuffix("-") else { return nil }
        let name = MondrianFilename(stem: String(stemPart.dropLast()), jobID: id, fileExtension: fileExtension)
        guard !name.stem.isEmpty, signer.verifyNameTag(tag, for: name.unsigned + "." + fileExtension),
              name.text(signedBy: signer) == text else { return nil }
        return name
    }
}
