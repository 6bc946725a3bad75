import AtelierImaging
import Foundation

/// The analysis of one photo by one or more advisors, and its self-contained HTML report: inline
/// CSS, the photo embedded as a small JPEG data URI, every text escaped; laid out for a phone
/// WebView (the Mondrian app shows it in WKWebView).
package struct AnalysisReport: Sendable {
    package var reviews: [AdvisorReview]
    package var reading: PhotoReading
    /// Mean of the advisors' overall marks, and its letter.
    package var overall: Double { reviews.isEmpty ? 0 : ((reviews.reduce(0) { $0 + $1.overall } / Double(reviews.count)) * 10).rounded() / 10 }
    package var grade: String { AdvisorReview.grade(overall) }

    package init(reviews: [AdvisorReview], reading: PhotoReading) {
        (self.reviews, self.reading) = (reviews, reading)
    }

    package func html(thumbnail: PixelBuffer, caption: String, generatedAt: Date = Date()) throws -> String {
        let preview = thumbnail.cappingLongSide(640)
        let jpeg = try ImageCodec.encodeJPEG(preview.channels == 4 ? preview.droppingAlpha() : preview, quality: 80)
        let dataURI = "data:image/jpeg;base64," + Data(jpeg).base64EncodedString()
        var sections = ""
        for review in reviews {
            var rows = ""
            for dimension in Dimension.allCases {
                let score = review.scores[dimension]
                let focus = review.advisor.focusAreas.contains(dimension) ? " class=\"focus\"" : ""
                rows += """
                    <tr\(focus)><td>\(HTMLText.escape(dimension.title)) (\(score.rounded)/10)</td>\
                    <td><div class="bar"><span style="width:\(score.rounded * 10)%"></span></div></td></tr>

                    """
            }
            let feedback = review.feedback.map { "<p>\(HTMLText.escape($0))</p>" }.joined(separator: "\n")
            let advice = review.recommendations.map { "<li>\(HTMLText.escape($0))</li>" }.joined(separator: "\n")
            sections += """
                <section class="advisor" id="\(HTMLText.escape(review.advisor.id))">
                <header><h2>\(HTMLText.escape(review.advisor.name))</h2><span class="grade">\(HTMLText.escape(review.grade))</span></header>
                <p class="specialty">\(HTMLText.escape(review.advisor.specialty)) · overall \(String(format: "%.1f", review.overall))/10 · focus: \
                \(HTMLText.escape(review.advisor.focusAreas.map(\.title).joined(separator: ", ")))</p>
                <table>\(rows)</table>
                <h3>Feedback</h3>
                \(feedback)
                <h3>Recommendations</h3>
                <ul>\(advice)</ul>
                <p class="byline">Written by \(HTMLText.escape(review.proseBy)) from the measured scores.</p>
                </section>

                """
        }
        let stamp = ISO8601DateFormatter().string(from: generatedAt)
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Photo analysis — grade \(HTMLText.escape(grade))</title>
            <style>
            body{margin:0;font:16px/1.5 -apple-system,system-ui,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;background:#f5f5f7}
            main{max-width:680px;margin:0 auto;padding:16px}
            img.photo{width:100%;border-radius:12px;display:block}
            .summary{display:flex;align-items:center;gap:16px;margin:16px 0}
            .summary .grade{font-size:40px}
            .grade{font-weight:700;color:#fff;background:#dd0100;border-radius:10px;padding:2px 12px;font-size:22px}
            .caption{color:#444;font-style:italic;margin:0}
            section.advisor{background:#fff;border-radius:14px;padding:14px 16px;margin:14px 0;box-shadow:0 1px 3px rgba(0,0,0,.08);border-top:6px solid #225095}
            section.advisor header{display:flex;justify-content:space-between;align-items:center}
            h2{font-size:20px;margin:0}h3{font-size:15px;margin:14px 0 4px;text-transform:uppercase;letter-spacing:.04em;color:#555}
            .specialty{color:#666;font-size:14px;margin:4px 0 10px}
            table{width:100%;border-collapse:collapse;font-size:14px}
            td{padding:4px 0;vertical-align:middle}td:first-child{width:58%}
            tr.focus td:first-child{font-weight:600}
            .bar{background:#eee;border-radius:4px;height:10px;overflow:hidden}.bar span{display:block;height:100%;background:#fac901}
            tr.focus .bar span{background:#225095}
            p{margin:6px 0}ul{margin:6px 0;padding-left:20px}.byline{color:#888;font-size:12px}
            footer{color:#888;font-size:12px;text-align:center;margin:20px 0}
            </style></head>
            <body><main>
            <img class="photo" src="\(dataURI)" alt="the analysed photo">
            <div class="summary"><span class="grade">\(HTMLText.escape(grade))</span>
            <div><strong>Overall \(String(format: "%.1f", overall))/10</strong> from \(reviews.count) advisor\(reviews.count == 1 ? "" : "s")
            <p class="caption">\(HTMLText.escape(caption))</p></div></div>
            \(sections)
            <footer>Scores are computed from measurements of the photo (exposure, contrast, sharpness, colour, \
            composition); generated by Atelier at \(HTMLText.escape(stamp)).</footer>
            </main></body></html>
            """
    }
}
