/// A photography advisor: a historical master's specialty and focus areas (which weigh double in
/// their grade) and a voice for the feedback. The words are written for Atelier in the spirit
/// of each photographer's known concerns; none are quotations.
package struct Advisor: Sendable, Equatable {
    package var id: String
    package var name: String
    package var specialty: String
    package var focusAreas: [Dimension]
    /// Opening of every review, in the advisor's voice.
    package var opening: String
    /// How the advisor praises and questions (fills "… {dimension} …").
    package var praise: String
    package var concern: String
    package var closing: String
    /// Colours of the generated portrait (a Mondrian-style composition per advisor).
    package var palette: [(UInt8, UInt8, UInt8)]

    package static func == (a: Advisor, b: Advisor) -> Bool { a.id == b.id }

    package func weight(_ dimension: Dimension) -> Double { focusAreas.contains(dimension) ? 2 : 1 }

    package static let all: [Advisor] = [
        Advisor(id: "ansel", name: "Ansel Adams", specialty: "Landscape Photography",
                focusAreas: [.composition, .lighting, .technique],
                opening: "I look first for the full scale of tones a print can hold, from deep shadow to clean highlight.",
                praise: "Your %@ is carefully previsualised", concern: "Your %@ asks for more deliberate control",
                closing: "Expose for the shadows you care about, then let the print sing.",
                palette: [(30, 30, 30), (220, 220, 215), (120, 120, 120)]),
        Advisor(id: "okeefe", name: "Georgia O'Keeffe", specialty: "Abstract & Close-up Photography",
                focusAreas: [.colour, .composition, .isolation],
                opening: "I want to see the shapes and colours so closely that they become their own world.",
                praise: "The %@ has a quiet strength", concern: "The %@ does not yet feel essential",
                closing: "Come closer, and leave out everything that is not the form itself.",
                palette: [(200, 60, 70), (240, 200, 180), (90, 40, 80)]),
        Advisor(id: "hcb", name: "Henri Cartier-Bresson", specialty: "Street Photography & the Decisive Moment",
                focusAreas: [.composition, .impact, .isolation],
                opening: "Geometry and timing must meet in the same instant for a street picture to live.",
                praise: "The %@ holds together with real geometry", concern: "The %@ misses its moment of order",
                closing: "Walk, wait, and release the shutter when the lines and the life agree.",
                palette: [(20, 20, 20), (200, 200, 200), (90, 90, 90)]),
        Advisor(id: "lange", name: "Dorothea Lange", specialty: "Documentary Photography",
                focusAreas: [.isolation, .impact, .lighting],
                opening: "A photograph should make the viewer stand where you stood and feel what you saw.",
                praise: "The %@ carries the weight of the moment", concern: "The %@ keeps the viewer at a distance",
                closing: "Stay with your subject longer than is comfortable; the true picture comes later.",
                palette: [(110, 100, 80), (200, 190, 170), (60, 55, 45)]),
        Advisor(id: "weston", name: "Edward Weston", specialty: "Form & Still Life",
                focusAreas: [.focus, .lighting, .technique],
                opening: "Form revealed by light, rendered with absolute clarity, is what I search for.",
                praise: "The %@ is rendered with conviction", concern: "The %@ blurs what should be seen plainly",
                closing: "Stop down, slow down, and let the surface of things speak.",
                palette: [(150, 110, 70), (230, 210, 180), (60, 45, 30)]),
        Advisor(id: "cunningham", name: "Imogen Cunningham", specialty: "Botanical & Portrait Photography",
                focusAreas: [.lighting, .isolation, .focus],
                opening: "Soft light and a clear subject let a plant or a face reveal its own structure.",
                praise: "The %@ is graceful and precise", concern: "The %@ competes with your subject",
                closing: "Simplify the ground and let window light model the form.",
                palette: [(60, 120, 80), (220, 230, 210), (30, 60, 40)]),
        Advisor(id: "maier", name: "Vivian Maier", specialty: "Street Portraiture",
                focusAreas: [.impact, .composition, .depth],
                opening: "The street gives you a thousand small theatres; the frame decides which one we watch.",
                praise: "The %@ catches something honest", concern: "The %@ lets the scene slip past",
                closing: "Carry the camera always, and frame from the waist, close and unnoticed.",
                palette: [(40, 40, 50), (190, 185, 180), (130, 60, 50)]),
        Advisor(id: "leiter", name: "Saul Leiter", specialty: "Colour Street Photography",
                focusAreas: [.colour, .depth, .impact],
                opening: "I like a picture that hides as much as it shows, through colour, glass and shadow.",
                praise: "The %@ has a painter's softness", concern: "The %@ says everything at once",
                closing: "Look through something — rain, a window, a shadow — and let colour lead.",
                palette: [(200, 50, 40), (230, 190, 90), (40, 70, 90)]),
        Advisor(id: "mondrian", name: "Piet Mondrian", specialty: "Geometric Abstraction & Balance",
                focusAreas: [.composition, .colour, .isolation],
                opening: "Balance is not symmetry: it is the tension of unequal areas held in equilibrium.",
                praise: "The %@ finds a true equilibrium", concern: "The %@ lacks a decisive structure",
                closing: "Reduce to the essential lines and primary relations; the balance will show itself.",
                palette: [(221, 1, 0), (34, 80, 149), (250, 201, 1)]),
    ]

    package static func named(_ id: String) -> Advisor? { all.first { $0.id == id } }
}
