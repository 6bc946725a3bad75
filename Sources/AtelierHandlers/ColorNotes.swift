import AtelierImaging
import AtelierWorker
import Foundation

extension JobContext {
    /// What a decode could not honour — a damaged colour profile ignored (the image read as
    /// sRGB), a CMYK file converted without its own profile, an HDR picture tone-mapped — goes
    /// into the job's log: a `progress` event whose data carries `note` (clients that do not
    /// know the key ignore it), and a log line. Never a failure.
    func record(_ color: ColorReport, percent: Int, step: String) async throws {
        for note in color.notes {
            logger.notice("colour: \(note)", metadata: ["job": "\(job.id)", "colour_source": "\(color.source)"])
            let detail = String(decoding: try JSONEncoder().encode(["note": note]), as: UTF8.self)
            try await progress(percent, step: step, detail: detail)
        }
    }
}
