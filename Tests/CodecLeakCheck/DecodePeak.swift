// The peak memory of one decode through ImageCodec (./ops/check-codecs --peak-memory FILE…):
// compiled with AtelierImaging's sources into one small program, it reads each file into one
// array, decodes it and prints the process's peak resident set (VmHWM) before and after. Each
// file runs in a process of its own, so one peak never hides another.
// `--make W H CHANNELS OUT.{png,webp,heic,jpg}` writes a test image (smooth gradients with
// detail, no noise, so a 50 MP file stays far under the 50 MiB upload limit).
#if canImport(Glibc)
import Glibc
#endif

@main
struct DecodePeak {
    static func peakKilobytes() -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return -1 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmHWM:") { return Int(text.dropFirst(6).filter(\.isNumber)) ?? -1 }
        }
        return -1
    }

    static func read(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
        defer { fclose(file) }
        fseek(file, 0, SEEK_END)
        let size = ftell(file)
        fseek(file, 0, SEEK_SET)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = fread(buffer.baseAddress, 1, size, file)
        }
    }

    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--make", arguments.count == 5, let width = Int(arguments[1]), let height = Int(arguments[2]),
           let channels = Int(arguments[3]) {
            var image = PixelBuffer(width: width, height: height, channels: channels)
            image.pixels.withUnsafeMutableBufferPointer { pixels in
                for y in 0..<height {
                    for x in 0..<width {
                        let base = (y * width + x) * channels
                        pixels[base] = UInt8(truncatingIfNeeded: x * 255 / width)
                        pixels[base + 1] = UInt8(truncatingIfNeeded: y * 255 / height)
                        pixels[base + 2] = UInt8(truncatingIfNeeded: ((x >> 5) ^ (y >> 5)) & 1 == 0 ? 60 : 190)
                        if channels == 4 { pixels[base + 3] = UInt8(truncatingIfNeeded: 255 - (x + y) % 32) }
                    }
                }
            }
            let out = arguments[4]
            let png = out.hasSuffix(".webp") ? try ImageCodec.encodeWebP(image, quality: 90)
                : out.hasSuffix(".heic") ? try ImageCodec.encodeHEIC(image, quality: 80)
                : out.hasSuffix(".jpg") ? try ImageCodec.encodeJPEG(image, quality: 90)
                : try ImageCodec.encodePNG(image)
            guard let file = fopen(arguments[4], "wb") else { fatalError("cannot write \(arguments[4])") }
            _ = png.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            print("\(arguments[4]): \(width)x\(height), \(channels) channels, \(png.count) bytes")
            return
        }
        guard let path = arguments.first else {
            print("usage: decode-peak FILE | --make W H CHANNELS OUT.png")
            return
        }
        let bytes = read(path)
        let before = peakKilobytes()
        let image = try ImageCodec.decode(bytes)
        let after = peakKilobytes()
        let pixels = image.pixels.count
        print("\(path): \(bytes.count / 1_048_576) MiB file → \(image.width)x\(image.height)x\(image.channels) "
              + "(\(pixels / 1_048_576) MiB of pixels); peak RSS \(before / 1024) MiB with the file read, "
              + "\(after / 1024) MiB after the decode (+\((after - before) / 1024) MiB)")
    }
}
