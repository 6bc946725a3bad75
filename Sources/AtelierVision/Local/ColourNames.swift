/// Everyday names for colours, from hue, saturation and value: what a person would call the
/// dominant colours of a photo ("deep blue", "warm brown", "pale grey").
enum ColourNames {
    static func name(red: UInt8, green: UInt8, blue: UInt8) -> String {
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let high = max(r, g, b), low = min(r, g, b)
        let value = high, chroma = high - low
        let saturation = high > 0 ? chroma / high : 0
        if value < 0.12 { return "black" }
        if saturation < 0.14 || chroma < 0.06 {
            switch value {
            case ..<0.3: return "charcoal"
            case ..<0.55: return "grey"
            case ..<0.8: return "pale grey"
            default: return "white"
            }
        }
        var hue: Double
        if high == r { hue = 60 * ((g - b) / chroma).truncatingRemainder(dividingBy: 6) }
        else if high == g { hue = 60 * ((b - r) / chroma + 2) }
        else { hue = 60 * ((r - g) / chroma + 4) }
        if hue < 0 { hue += 360 }
        let base: String
        switch hue {
        case ..<15, 345...: base = value < 0.45 ? "maroon" : (saturation < 0.45 ? "pink" : "red")
        case ..<45: base = value < 0.55 ? "brown" : (saturation < 0.45 ? "peach" : "orange")
        case ..<70: base = value < 0.5 ? "olive" : (saturation < 0.4 ? "cream" : "yellow")
        case ..<160: base = "green"
        case ..<195: base = "teal"
        case ..<250: base = "blue"
        case ..<290: base = "purple"
        default: base = value < 0.5 ? "plum" : "magenta"
        }
        if ["maroon", "brown", "olive", "plum"].contains(base) { return base }
        if value < 0.4 { return "deep " + base }
        if saturation < 0.35, value > 0.75, !["pink", "peach", "cream"].contains(base) { return "pale " + base }
        return base
    }
}
