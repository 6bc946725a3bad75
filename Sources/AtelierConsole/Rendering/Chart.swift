import Foundation

/// Bar charts as inline SVG, drawn on the server: no chart library, nothing fetched. Each chart
/// is an image with a text alternative (its latest and highest values), and each bar has a
/// tooltip with its value.
enum Chart {
    /// `primary` is the main bars' class (`good` or `bad`); `secondary` values stack above them as `bad`.
    static func bars(title: String, values: [Double], secondary: [Double]?, legend: (String, String?),
                     format: (Double) -> String, fixedMax: Double? = nil, primary: String = "good") -> String {
        let width = 600.0, height = 120.0
        let totals = zip(values, secondary ?? Array(repeating: 0, count: values.count)).map { $0 + $1 }
        let top = fixedMax ?? max(1, totals.max() ?? 1)
        let step = width / Double(max(1, values.count))
        let latest = values.last.map(format) ?? "—"
        let highest = totals.max().map(format) ?? "—"
        let description = "\(title): latest minute \(latest), highest \(highest)"
        var svg = "<figure class=\"chart\"><figcaption>\(h(title))</figcaption>"
        svg += "<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"\(h(description))\">"
        for (index, value) in values.enumerated() {
            let x = Double(index) * step
            let primaryHeight = height * min(1, value / top)
            let other = secondary?[index] ?? 0
            let otherHeight = height * min(1, other / top)
            let label = secondary == nil ? format(value) : "\(format(value)) \(legend.0), \(format(other)) \(legend.1 ?? "")"
            svg += "<g><title>\(h(label))</title>"
            svg += String(format: "<rect class=\"bar \(primary)\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                          x, height - primaryHeight, max(1, step - 1), primaryHeight)
            if otherHeight > 0 {
                svg += String(format: "<rect class=\"bar bad\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                              x, height - primaryHeight - otherHeight, max(1, step - 1), otherHeight)
            }
            svg += "</g>"
        }
        svg += "</svg><p class=\"legend\"><span class=\"key \(primary)\"></span>\(h(legend.0))"
        if let second = legend.1 { svg += " <span class=\"key bad\"></span>\(h(second))" }
        svg += " · latest \(h(latest)) · highest \(h(highest))</p></figure>"
        return svg
    }
}
