import AtelierQueue

extension JobKindCatalog {
    /// `caption`: an image described by the configured vision provider. Interactive priority, so
    /// it overtakes batch work; the image is deleted when the job ends.
    public static let caption = JobKind(name: "caption", image: .required, priority: Priority.interactive, maxAttempts: 2)
}

extension JobKindCatalog {
    /// `upload`: an image kept for later work without analysis (Mondrian's `auto_analyze=false`);
    /// the worker checks it is stored and readable.
    public static let upload = JobKind(name: "upload", image: .required, priority: Priority.interactive, maxAttempts: 3)
}
