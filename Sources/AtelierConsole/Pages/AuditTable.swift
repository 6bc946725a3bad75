import AtelierQueue

/// The audit log as a table: when, who, what, to which queue or job.
enum AuditTable {
    static func render(_ entries: [AuditEntry]) -> String {
        var html = "<div class=\"scroll\" tabindex=\"0\"><table class=\"audit\"><thead><tr><th scope=\"col\">When (UTC)</th><th scope=\"col\">Who</th>"
            + "<th scope=\"col\">Action</th><th scope=\"col\">Target</th></tr></thead><tbody>"
        for entry in entries {
            var target = h(entry.target)
            if entry.target.hasPrefix("job:") {
                let id = String(entry.target.dropFirst(4))
                target = "<a href=\"/admin/jobs/\(h(id))\" class=\"mono\">job \(h(String(id.suffix(8))))</a>"
            }
            html += "<tr><td>\(Format.timeTag(entry.at))</td><td>\(h(entry.actor))</td><td>\(h(entry.action))</td><td>\(target)</td></tr>"
        }
        return html + "</tbody></table></div>"
    }
}
