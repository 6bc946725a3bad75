import ArgumentParser
import AtelierImaging
import Foundation

struct StylesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "styles",
        abstract: "Render the stylize styles locally (no database): one photo, or a contact sheet of several.",
        subcommands: [Render.self, Sheet.self])

    struct Render: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Render one image in one style (JPEG or PNG by the output's extension).")
        @Option(help: "cartoon, sketch, pop_art, watercolor or comic.") var style: String
        @Option(help: "0…1; 0.5 is the style's default look.") var intensity = 0.5
        @Option(name: .customLong("max-side"), help: "Cap the long side first (default 2048).") var maxSide = 2048
        @Argument(help: "Input image (JPEG or PNG).") var input: String
        @Argument(help: "Output file (.jpg or .png).") var output: String

        func run() async throws {
            do {
                guard let style = StyleID(rawValue: style) else {
                    throw ValidationError("unknown style '\(style)'; one of \(StyleID.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                var parameters = StyleParameters()
                parameters.intensity = max(0, min(1, intensity))
                let image = try StylesCommand.load(input).cappingLongSide(maxSide)
                let started = ContinuousClock.now
                let styled = Stylizer.render(image, style: style, parameters: parameters)
                let elapsed = ContinuousClock.now - started
                try StylesCommand.save(styled, to: output)
                say("\(style.rawValue): \(image.width)x\(image.height) in \(elapsed) → \(output)")
            } catch let error as ValidationError {
                throw error
            } catch {
                throw fail(error)
            }
        }
    }

    struct Sheet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A contact sheet: one row per photo — the photo, then each style.")
        @Option(help: "Width of each tile in pixels.") var tile = 256
        @Option(help: "Output file (.jpg or .png).") var out: String
        @Flag(help: "Two rows per photo: its colour profile ignored (its numbers read as sRGB, as before Atelier managed colour), then honoured.")
        var compareProfiles = false
        @Argument(help: "Photos (JPEG, PNG, HEIC or WebP).") var photos: [String]

        func run() async throws {
            do {
                let readings = compareProfiles ? [false, true] : [true]
                let rows = try photos.flatMap { path in
                    try readings.map { manage -> [PixelBuffer] in
                        let photo = try StylesCommand.load(path, manageColor: manage).cappingLongSide(1024)
                        let styled = StyleID.allCases.map { Stylizer.render(photo, style: $0, parameters: StyleParameters()) }
                        return ([photo] + styled).map { $0.resized(width: tile, height: max(1, tile * $0.height / $0.width)) }
                    }
                }
                try StylesCommand.save(ContactSheet.compose(rows, gap: 4), to: out)
                say("contact sheet: \(photos.count) photo(s)\(compareProfiles ? " (profile ignored, then honoured)" : "") × original + "
                    + "\(StyleID.allCases.map(\.rawValue).joined(separator: ", ")) → \(out)")
            } catch {
                throw fail(error)
            }
        }
    }

    static func load(_ path: String, manageColor: Bool = true) throws -> PixelBuffer {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
        return try ImageCodec.decode([UInt8](data), manageColor: manageColor).droppingAlpha()
    }

    static func save(_ image: PixelBuffer, to path: String) throws {
        let bytes = path.lowercased().hasSuffix(".png") ? try ImageCodec.encodePNG(image) : try ImageCodec.encodeJPEG(image, quality: 88)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw ValidationError("cannot write \(path)") }
    }
}

/// Tiles in rows on a white ground.
enum ContactSheet {
    static func compose(_ rows: [[PixelBuffer]], gap: Int) -> PixelBuffer {
        let width = rows.map { $0.reduce(gap) { $0 + $1.width + gap } }.max() ?? 1
        let height = rows.reduce(gap) { $0 + ($1.map(\.height).max() ?? 0) + gap }
        var sheet = PixelBuffer(width: width, height: height, channels: 3, fill: 255)
        var y = gap
        for row in rows {
            var x = gap
            for tile in row {
                for ty in 0..<tile.height {
                    for tx in 0..<tile.width {
                        for k in 0..<3 {
                            sheet.pixels[((y + ty) * width + x + tx) * 3 + k] = tile.pixels[(ty * tile.width + tx) * tile.channels + k]
                        }
                    }
                }
                x += tile.width + gap
            }
            y += (row.map(\.height).max() ?? 0) + gap
        }
        return sheet
    }
}
