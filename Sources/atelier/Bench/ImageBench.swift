import AtelierImaging
import Foundation

/// `atelier bench image`: the image pipeline on one photo, timed the way
/// `ops/bench/peers/image_peers.py` times djpeg, Pillow, pyvips and OpenCV, printing the same
/// JSON lines (`system`, `op`, `threads`, `runs`, `median_ms`, `min_ms`, `width`, `height`).
struct ImageBench {
    let photo: [UInt8]
    /// The same photo tagged Display P3 (an ICC profile in APP2), for the `color` ops.
    var colorPhoto: [UInt8]? = nil
    let threads: Int
    let runs: Int
    /// The stylize job's long side.
    let side = 2048

    var timer: BenchTimer { BenchTimer(threads: threads, runs: runs) }

    func measure<T>(_ op: String, note: String, size: (T) -> (Int, Int), _ body: () throws -> T) rethrows {
        try timer.measure(op, note: note, size: size, body)
    }

    func run(styles: [StyleID], ops: Set<String>) throws {
        ImagingConcurrency.limit(to: threads)
        defer { ImagingConcurrency.limit(to: 0) }
        let pixelSize: (PixelBuffer) -> (Int, Int) = { ($0.width, $0.height) }
        if ops.contains("decode") {
            try measure("decode", note: "ImageCodec.decode, full size, libjpeg-turbo ISLOW IDCT (single-threaded)", size: pixelSize) {
                try ImageCodec.decode(photo, applyOrientation: false)
            }
        }
        let side = self.side
        func pipeline() throws -> (PixelBuffer, [UInt8]) {
            let image = try ImageCodec.decode(photo, minimumLongSide: side).cappingLongSide(side)
            return (image, try ImageCodec.encodeJPEG(image, quality: 90))
        }
        if ops.contains("pipeline") {
            try measure("pipeline", note: "decode DCT-scaled to the smallest k/8 ≥ 2048 → area resize to 2048 → JPEG q90",
                        size: { pixelSize($0.0) }) { try pipeline() }
        }
        let capped = try ImageCodec.decode(photo, minimumLongSide: side).cappingLongSide(side)
        if ops.contains("style") {
            for style in styles {
                measure("style:\(style.rawValue)", note: "Stylizer.render at intensity 0.5 on the 2048-px image", size: pixelSize) {
                    Stylizer.render(capped, style: style, parameters: StyleParameters())
                }
            }
        }
        if ops.contains("filters") {
            // The building blocks, for profiling the styles (no peer counterpart).
            let luma = FloatPlane(luma: capped)
            measure("filter:domain_transform", note: "σs 60, σr 40, 3 iterations, RGB", size: pixelSize) {
                DomainTransform(sigmaSpatial: 60, sigmaRange: 40).apply(capped)
            }
            for sigma: Float in [2, 14] {
                measure("filter:gaussian_\(Int(sigma))", note: "FloatPlane σ \(sigma)", size: { ($0.width, $0.height) }) {
                    luma.gaussianBlurred(sigma: sigma)
                }
            }
            measure("filter:luma", note: "FloatPlane(luma:)", size: { ($0.width, $0.height) }) { FloatPlane(luma: capped) }
            measure("filter:sobel", note: "Sobel magnitude", size: { ($0.width, $0.height) }) { luma.sobelMagnitude() }
            measure("filter:resize_down_4", note: "area 2048 → 512", size: pixelSize) { capped.resized(width: capped.width / 4, height: capped.height / 4) }
            let quarter = capped.resized(width: capped.width / 4, height: capped.height / 4)
            measure("filter:resize_up_4", note: "bilinear 512 → 2048", size: pixelSize) { quarter.resized(width: capped.width, height: capped.height) }
            measure("filter:kuwahara", note: "radius 11", size: pixelSize) { Kuwahara.filter(capped, radius: 11) }
        }
        /// The stylize job without storage: decode → cap 2048 → style → JPEG q90; the result's size.
        func stylizeJob(_ bytes: [UInt8], _ style: StyleID) throws -> (Int, Int) {
            let image = try ImageCodec.decode(bytes, minimumLongSide: side).cappingLongSide(side)
            let styled = Stylizer.render(image, style: style, parameters: StyleParameters())
            _ = try ImageCodec.encodeJPEG(styled, quality: 90)
            return (styled.width, styled.height)
        }
        if ops.contains("color"), let colorPhoto {
            // The transform alone on the full-size picture (in place, so each run transforms the
            // previous run's output: the same work), then the stylize job on the tagged photo.
            var full = try ImageCodec.decode(colorPhoto, applyOrientation: false, manageColor: false)
            measure("color:transform", note: "ImageCodec.convertToSRGB: carrier read + the cached transform (the matrix-shaper kernel for this P3 profile) over bands of rows",
                    size: { (_: ColorReport) in (full.width, full.height) }) {
                ImageCodec.convertToSRGB(&full, declaredIn: colorPhoto)
            }
            // The job's own decode of the tagged photo (DCT-scaled, capped at 2048) with its profile
            // honoured and ignored: the difference is what colour management adds to a job.
            for (op, manage) in [("color:job_decode", true), ("color:job_decode_ignored", false)] {
                try measure(op, note: "the stylize job's decode of the P3-tagged photo (k/8 DCT scale, cap 2048), profile \(manage ? "honoured" : "ignored")",
                            size: pixelSize) {
                    try ImageCodec.decode(colorPhoto, minimumLongSide: side, manageColor: manage).cappingLongSide(side)
                }
            }
            for style in styles {
                try measure("color:stylize:\(style.rawValue)", note: "stylize:\(style.rawValue) on the Display P3-tagged photo (the transform at 2048 px included)",
                            size: { ($0.0, $0.1) }) { try stylizeJob(colorPhoto, style) }
            }
        }
        if ops.contains("variant") {
            // A photo variant's first rendering (what /variants/… does before it caches): the
            // 13 MP JPEG → at most 512 px → encoded. inside matches `vipsthumbnail -s 512`;
            // webp_cover adds the subject-aware crop (`--smartcrop attention` there).
            let cases: [(String, VariantRequest)] = [
                ("variant:jpeg", VariantRequest(width: 512, height: 512, fit: .inside, format: .jpeg, quality: 80)),
                ("variant:webp", VariantRequest(width: 512, height: 512, fit: .inside, format: .webp, quality: 80)),
                ("variant:avif", VariantRequest(width: 512, height: 512, fit: .inside, format: .avif, quality: 80)),
                ("variant:webp_cover", VariantRequest(width: 512, height: 512, fit: .cover, format: .webp, quality: 80)),
            ]
            let info = try ImageCodec.probe(photo)
            for (op, request) in cases {
                let plan = VariantPlan.plan(photoWidth: info.width, photoHeight: info.height, width: request.width,
                                            height: request.height, fit: request.fit)
                try measure(op, note: "PhotoVariant.render: probe, DCT-scaled decode, \(request.fit.rawValue) 512 px, "
                                + "\(request.format.rawValue) q80\(request.format == .avif ? " (libaom speed 8, one thread)" : "")",
                            size: { (_: [UInt8]) in (plan.canvasWidth, plan.canvasHeight) }) {
                    try PhotoVariant.render(photo, request)
                }
            }
        }
        if ops.contains("stylize") {
            for style in styles {
                try measure("stylize:\(style.rawValue)", note: "the stylize job without storage: decode → cap 2048 → style → JPEG q90",
                            size: { ($0.0, $0.1) }) { try stylizeJob(photo, style) }
            }
        }
    }
}
