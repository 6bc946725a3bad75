/// How a photo variant fills the box its URL asks for (the names of CSS `object-fit` and sharp):
/// - `cover`: exactly the box, the photo scaled to fill it and cropped — around its subject
///   (``SmartCrop``), not its centre;
/// - `contain`: exactly the box, the whole photo scaled to fit inside it, the rest padded;
/// - `inside`: the whole photo scaled to fit inside the box, no padding (one side may be shorter).
package enum VariantFit: String, Sendable, CaseIterable {
    case cover, contain, inside
}

/// A rectangle of pixels.
package struct PixelRect: Sendable, Equatable {
    package var x: Int, y: Int, width: Int, height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}

/// The geometry of one variant of one photo: which part of the photo to take, the size to scale
/// it to, and the canvas it lands on. A variant is never larger than its photo: a box bigger
/// than the photo gives the photo at its own size (cropped to the box's shape for `cover`).
package struct VariantPlan: Sendable, Equatable {
    /// The part of the photo used (all of it, except for `cover`).
    package var source: PixelRect
    /// The size `source` is scaled to.
    package var scaledWidth: Int, scaledHeight: Int
    /// The output: `scaled` placed at `offset` (only `contain` pads, centring the photo).
    package var canvasWidth: Int, canvasHeight: Int, offsetX: Int, offsetY: Int

    /// The plan for a `width` × `height` photo. A missing side follows the photo's aspect
    /// (then every fit is `inside`); at least one side must be given and positive.
    /// `subject` places a `cover` crop: given the crop's size, it returns its top-left corner.
    package static func plan(photoWidth: Int, photoHeight: Int, width: Int?, height: Int?, fit: VariantFit,
                             subject: (_ cropWidth: Int, _ cropHeight: Int) -> (x: Int, y: Int) = { _, _ in (-1, -1) }) -> VariantPlan {
        let (pw, ph) = (Double(photoWidth), Double(photoHeight))
        let boxWidth = width.map(Double.init) ?? pw * Double(height ?? photoHeight) / ph
        let boxHeight = height.map(Double.init) ?? ph * Double(width ?? photoWidth) / pw
        let fit = (width == nil || height == nil) ? .inside : fit
        let whole = PixelRect(x: 0, y: 0, width: photoWidth, height: photoHeight)
        switch fit {
        case .cover:
            // The crop has the box's shape, as large as the photo allows; then scaled down (never up).
            let cropScale = min(pw / boxWidth, ph / boxHeight)
            let cw = max(1, min(photoWidth, Int((boxWidth * cropScale).rounded())))
            let ch = max(1, min(photoHeight, Int((boxHeight * cropScale).rounded())))
            var (x, y) = subject(cw, ch)
            if x < 0 || y < 0 { (x, y) = ((photoWidth - cw) / 2, (photoHeight - ch) / 2) }
            let source = PixelRect(x: max(0, min(photoWidth - cw, x)), y: max(0, min(photoHeight - ch, y)), width: cw, height: ch)
            let scale = min(1, boxWidth / Double(cw))
            let sw = max(1, Int((Double(cw) * scale).rounded())), sh = max(1, Int((Double(ch) * scale).rounded()))
            return VariantPlan(source: source, scaledWidth: sw, scaledHeight: sh, canvasWidth: sw, canvasHeight: sh, offsetX: 0, offsetY: 0)
        case .contain, .inside:
            let scale = min(1, boxWidth / pw, boxHeight / ph)
            let sw = max(1, Int((pw * scale).rounded())), sh = max(1, Int((ph * scale).rounded()))
            guard fit == .contain else {
                return VariantPlan(source: whole, scaledWidth: sw, scaledHeight: sh, canvasWidth: sw, canvasHeight: sh, offsetX: 0, offsetY: 0)
            }
            let canvasWidth = max(sw, Int(boxWidth.rounded())), canvasHeight = max(sh, Int(boxHeight.rounded()))
            return VariantPlan(source: whole, scaledWidth: sw, scaledHeight: sh, canvasWidth: canvasWidth, canvasHeight: canvasHeight,
                               offsetX: (canvasWidth - sw) / 2, offsetY: (canvasHeight - sh) / 2)
        }
    }
}
