/// The eight dimensions every advisor scores, 1–10.
package enum Dimension: String, CaseIterable, Sendable, Codable {
    case composition
    case lighting = "lighting_exposure"
    case focus = "focus_sharpness"
    case colour = "color_harmony"
    case isolation = "subject_isolation"
    case depth = "depth_perspective"
    case impact = "visual_impact"
    case technique = "technical_execution"

    package var title: String {
        switch self {
        case .composition: "Composition"
        case .lighting: "Lighting & Exposure"
        case .focus: "Focus & Sharpness"
        case .colour: "Color Harmony"
        case .isolation: "Subject Isolation"
        case .depth: "Depth & Perspective"
        case .impact: "Visual Impact"
        case .technique: "Technical Execution"
        }
    }
}
