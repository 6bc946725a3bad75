import ArgumentParser
import AtelierImaging
import Foundation

/// `atelier variant`: a photo variant rendered locally, as `/variants/…` renders it (no database,
/// no signature), and its ThumbHash placeholder.
struct VariantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "variant",
        abstract: "Render a photo variant locally (as /variants/… does), or a photo's ThumbHash placeholder.",
        subcommands: [Render.self, Placeholder.self])

    struct Render: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resize a photo into a box: cover (around its subject), contain or inside.")
        @Option(help: "Width in pixels.") var width: Int?
        @Option(help: "Height in pixels.") var height: Int?
        @Option(help: "cover, contain or inside.") var fit = "cover"
        @Option(help: "jpeg, webp or avif.") var format = "jpeg"
        @Option(help: "Encoder quality 1…100.") var quality = 80
        @Argument(help: "Input photo (JPEG, PNG, HEIC or WebP).") var input: String
        @Argument(help: "Output file.") var output: String

        func run() async throws {
            guard width != nil || height != nil else { throw ValidationError("give --width, --height or both") }
            guard let fit = VariantFit(rawValue: fit) else { throw ValidationError("fit must be cover, contain or inside") }
            guard let format = VariantFormat(rawValue: format) else { throw ValidationError("format must be jpeg, webp or avif") }
            guard (1...100).contains(quality) else { throw ValidationError("quality must be 1…100") }
            do {
                guard let data = FileManager.default.contents(atPath: input) else { throw ValidationError("cannot read \(input)") }
                let started = ContinuousClock.now
                let bytes = try PhotoVariant.render([UInt8](data), VariantRequest(width: width, height: height, fit: fit, format: format,
                                                                                  quality: quality))
                let elapsed = ContinuousClock.now - started
                guard FileManager.default.createFile(atPath: output, contents: Data(bytes)) else { throw ValidationError("cannot write \(output)") }
                say("\(fit.rawValue) \(width.map(String.init) ?? "–")×\(height.map(String.init) ?? "–") \(format.rawValue): "
                    + "\(bytes.count) bytes in \(elapsed) → \(output)")
            } catch let error as ValidationError {
                throw error
            } catch {
                throw fail(error)
            }
        }
    }

    struct Placeholder: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a photo's ThumbHash (base64); --png writes the placeholder a phone would paint.")
        @Option(help: "Write the decoded placeholder (32 px) as PNG here.") var png: String?
        @Argument(help: "Input photo.") var input: String

        func run() async throws {
            do {
                guard let data = FileManager.default.contents(atPath: input) else { throw ValidationError("cannot read \(input)") }
                let photo = try ImageCodec.decode([UInt8](data), minimumLongSide: 100)
                let hash = ThumbHash.encode(photo)
                print(Data(hash).base64EncodedString())
                if let png, let placeholder = ThumbHash.decode(hash) {
                    guard FileManager.default.createFile(atPath: png, contents: Data(try ImageCodec.encodePNG(placeholder))) else {
                        throw ValidationError("cannot write \(png)")
                    }
                }
            } catch let error as ValidationError {
                throw error
            } catch {
                throw fail(error)
            }
        }
    }
}
