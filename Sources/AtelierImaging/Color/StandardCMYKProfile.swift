import Foundation

/// The CMYK profile used for CMYK JPEGs that carry none (or a broken one): `ATELIER_CMYK_PROFILE`
/// when set, else Ghostscript's default CMYK profile (Debian `libgs-common`, a SWOP-like press
/// profile), read once per process. Without either, CMYK is converted arithmetically and the job's
/// log says so.
enum StandardCMYKProfile {
    static let paths = [ProcessInfo.processInfo.environment["ATELIER_CMYK_PROFILE"],
                        "/usr/share/color/icc/ghostscript/default_cmyk.icc"].compactMap { $0 }.filter { !$0.isEmpty }

    static let bytes: [UInt8]? = {
        for path in paths {
            if let data = FileManager.default.contents(atPath: path), data.count >= 132 { return [UInt8](data) }
        }
        return nil
    }()
}
