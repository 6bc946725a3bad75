import AtelierQueue

extension JobKindCatalog {
    /// `caption`: an image described by the configured vision provider. Interactive priority, so
    /// it overtakes batch work; the image is deleted when the job ends.
    public static let caption = JobKind(name: "caption", image: .required, priority: Priority.interactive, maxAttempts: 2)
}
