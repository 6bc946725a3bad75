import AtelierImaging

/// The default provider: needs nothing outside the machine. Captions are composed from the
/// photo's measurements (``PhotoReading``), so they are true of the photo but never name what
/// is in it — and say so: `provider` "atelier-local", `model` "atelier-local-caption-1".
/// `confidence` follows how clearly the measured cues hold. Same image → same caption.
package struct LocalVisionProvider: VisionProvider {
    package let name = "atelier-local"
    package let model = "atelier-local-caption-1"

    package init() {}

    package func caption(_ photo: VisionInput) async throws(VisionError) -> Caption {
        let reading = PhotoReading.read(photo.image)
        let confidence = reading.clarity >= 0.3 ? "high" : (reading.clarity >= 0.15 ? "medium" : "low")
        return Caption(text: LocalCaptioner.caption(reading), provider: name, model: model, confidence: confidence)
    }
}
