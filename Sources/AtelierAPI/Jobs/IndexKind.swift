import AtelierSearch
import Foundation

extension JobKindCatalog {
    /// `index`: a `text`, or an image with its `caption`, embedded and stored for search under
    /// the caller's owner (see ``IndexRequest`` for every field).
    public static let index: JobKind = {
        var kind = JobKind(name: "index", image: .optional)
        kind.validateWithImage = { options, hasImage in
            do {
                _ = try IndexRequest.parse(options, hasImage: hasImage)
            } catch let error as IndexRequest.Invalid {
                throw APIError.validation(error.message, field: error.field)
            }
        }
        return kind
    }()
}
