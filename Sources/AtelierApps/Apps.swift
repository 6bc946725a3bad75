import AtelierAPI

/// The apps' facades this build serves beside the core API, in the order they are registered:
/// the caption app's route and Mondrian's root routes. `atelier serve` and `atelier dev` hand
/// them to ``APIServer``.
package enum Apps {
    package static let all: [any APIApp] = [CaptionApp(), MondrianApp()]
}
