import AtelierHashing
import Foundation

/// Composes a caption from a ``PhotoReading``: one sentence on tone, contrast and colour, one on
/// detail and grain, one on composition when there is something to say. It describes only what
/// was measured — never objects, which it cannot see. Phrasings vary between photos but not
/// between runs: the choice is seeded by a hash of the measurements.
enum LocalCaptioner {
    static func caption(_ r: PhotoReading) -> String {
        var chooser = Chooser(seed: seed(r))
        var sentences = [tone(r, &chooser), detail(r, &chooser)]
        if let composition = composition(r, &chooser) { sentences.append(composition) }
        return sentences.joined(separator: " ")
    }

    // MARK: sentences

    static func tone(_ r: PhotoReading, _ chooser: inout Chooser) -> String {
        let key: String = switch r.key {
        case .lowKey: chooser.pick(["dark, low-key", "deeply shadowed, low-key"])
        case .dark: chooser.pick(["dim, moody", "subdued, darker"])
        case .balanced: chooser.pick(["evenly exposed", "balanced"])
        case .bright: chooser.pick(["bright", "light-filled"])
        case .highKey: chooser.pick(["bright, high-key", "airy, high-key"])
        }
        let frame: String = switch r.frame {
        case .panorama: "panoramic frame"
        case .landscape: chooser.pick(["landscape-format photograph", "horizontal frame"])
        case .square: "square frame"
        case .portrait: chooser.pick(["portrait-format photograph", "vertical frame"])
        case .tall: "tall, narrow frame"
        }
        let contrast: String = switch r.contrast {
        case .flat: chooser.pick(["very flat contrast", "almost no tonal contrast"])
        case .soft: chooser.pick(["soft, gentle contrast", "a soft tonal range"])
        case .moderate: chooser.pick(["moderate contrast", "a measured tonal range"])
        case .strong: chooser.pick(["strong contrast", "punchy, high contrast"])
        }
        let colour = palettePhrase(r, &chooser)
        let opening = article(key).capitalizedFirst + " \(key) \(frame)"
        return chooser.pick([
            "\(opening) \(colour), with \(contrast).",
            "\(opening) with \(contrast), \(colour).",
        ])
    }

    static let neutrals: Set<String> = ["black", "charcoal", "grey", "pale grey", "white"]

    static func palettePhrase(_ r: PhotoReading, _ chooser: inout Chooser) -> String {
        let names = listed(r.palette)
        // Strength words belong to the colours, not to the greys beside them.
        let hues = r.palette.filter { !neutrals.contains($0) }, greys = r.palette.filter { neutrals.contains($0) }
        let against = greys.isEmpty ? "" : " against \(listed(greys))"
        let cast = r.warmth > 0.35 ? "warm " : (r.warmth < -0.35 ? "cool " : "")
        switch r.colour {
        case .monochrome:
            return names.isEmpty ? "in near-monochrome tones" : "in near-monochrome \(names) tones"
        case .muted:
            return hues.isEmpty ? "in muted \(cast)greys" : chooser.pick(["in muted \(cast)\(listed(hues))\(against)", "in quiet, \(cast)muted \(listed(hues))\(against)"])
        case .moderate:
            return chooser.pick(["in \(cast)\(names)", "coloured mostly \(names)"])
        case .vivid, .intense:
            let strength = r.colour == .intense ? "intensely saturated" : "vivid"
            // Saturated patches too small to make the palette still make the frame colourful.
            let colours = hues.isEmpty ? "colour" : listed(hues)
            return chooser.pick(["in \(strength) \(colours)\(against)", "alive with \(strength) \(colours)\(against)"])
        }
    }

    static func detail(_ r: PhotoReading, _ chooser: inout Chooser) -> String {
        if r.tiny { return "At this size there is no detail or texture to judge." }
        var sentence: String = switch r.sharpness {
        case .blurred: chooser.pick(["Detail is blurred throughout, as from missed focus or motion", "Edges are blurred across the frame"])
        case .soft: chooser.pick(["Detail is soft rather than crisp", "Focus is gentle, with softened edges"])
        case .sharp: chooser.pick(["Detail is sharp", "Edges are well defined"])
        case .crisp: chooser.pick(["Fine detail is crisp throughout", "Edges are crisp and finely resolved"])
        }
        var notes: [String] = []
        if r.grainy { notes.append(r.noise >= 12 ? "heavy grain" : "visible grain") }
        if r.blownHighlights { notes.append("some highlights are blown to pure white") }
        if r.crushedShadows { notes.append("the deepest shadows are crushed to black") }
        if !notes.isEmpty { sentence += ", and " + listed(notes) }
        return sentence + "."
    }

    static func composition(_ r: PhotoReading, _ chooser: inout Chooser) -> String? {
        var parts: [String] = []
        if let position = r.weightPosition {
            parts.append(chooser.pick(["the visual weight sits toward \(position)", "the eye is drawn toward \(position)"]))
        }
        if let tilt = r.horizonTilt {
            if abs(tilt) < 0.75 {
                parts.append("a level horizontal line runs across it")
            } else {
                let side = tilt > 0 ? "rising to the right" : "falling to the right"
                parts.append("its dominant horizontal line tilts about \(Int(abs(tilt).rounded()))° (\(side))")
            }
        }
        guard !parts.isEmpty else { return nil }
        return listed(parts).capitalizedFirst + "."
    }

    // MARK: helpers

    static func listed(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        case 2: return "\(items[0]) and \(items[1])"
        default: return items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
    }

    static func article(_ word: String) -> String {
        guard let first = word.lowercased().first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    /// FNV-1a over the rounded measurements: stable across processes (Swift's Hasher is not).
    static func seed(_ r: PhotoReading) -> UInt64 {
        let m = r.measurements
        var hash = FNV1a()
        for value in [m.meanLuma * 1000, m.rmsContrast * 1000, m.colourfulness * 10, m.laplacianVariance, m.aspectRatio * 100] {
            hash.combine(withUnsafeBytes(of: Int64(value.rounded()).littleEndian, Array.init))
        }
        return hash.value
    }

    /// Deterministic choices from a seed (SplitMix64 steps).
    struct Chooser {
        var state: UInt64
        init(seed: UInt64) { state = seed }

        mutating func pick(_ options: [String]) -> String {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            z ^= z >> 31
            return options[Int(z % UInt64(options.count))]
        }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
