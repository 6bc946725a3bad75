import AtelierAPI

/// The apps' facades this build serves beside the core API, in the order they are registered:
/// the caption app's route, Mondrian's root routes, the fleet app's and the Learn Assistant's sign-in routes. `atelier serve` and `atelier dev` hand
/// them to ``APIServer``.
package enum Apps {
    package static let all: [any APIApp] = [CaptionApp(), MondrianApp(), FleetApp(), LearnApp()]
}
