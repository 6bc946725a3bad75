import Foundation

/// ThumbHash (Evan Wallace, 2023): a photo's placeholder in about 25 bytes — its average colour,
/// aspect ratio and a few low-frequency DCT terms of luminance and two chroma channels (and
/// alpha when the photo has transparent pixels). A phone decodes it into a 32-px blur before the
/// image arrives. Chosen over BlurHash because it keeps the aspect ratio and alpha, carries more
/// detail in fewer bytes, and needs no component counts chosen by the server.
///
/// `encode` works on a copy of at most 100 × 100 (area-averaged): the hash has no more detail than
/// that, and the DCT costs w·h per term. `decode` is the reference decoder, for tests and the
/// documentation's pictures; clients ship their own.
package enum ThumbHash {
    /// The hash of `image` (gray, RGB or RGBA; RGB not premultiplied). The arithmetic is the
    /// reference encoder's, in Float32 and in its order, so the bytes are the same as its.
    package static func encode(_ image: PixelBuffer) -> [UInt8] {
        let long = max(image.width, image.height)
        let small = long > 100
            ? image.resized(width: max(1, (image.width * 100 + long / 2) / long), height: max(1, (image.height * 100 + long / 2) / long))
            : image
        let (w, h, c) = (small.width, small.height, small.channels)
        // Each pixel as bytes (R, G, B, A).
        func sample(_ i: Int) -> (Float, Float, Float, Float) {
            let p = i * c
            if c < 3 {
                let v = Float(small.pixels[p])
                return (v, v, v, c == 2 ? Float(small.pixels[p + 1]) : 255)
            }
            return (Float(small.pixels[p]), Float(small.pixels[p + 1]), Float(small.pixels[p + 2]), c == 4 ? Float(small.pixels[p + 3]) : 255)
        }
        // The average colour, weighted by alpha.
        var (avgR, avgG, avgB, avgA): (Float, Float, Float, Float) = (0, 0, 0, 0)
        for i in 0..<(w * h) {
            let (r, g, b, a) = sample(i)
            let alpha = a / 255
            avgR += alpha / 255 * r; avgG += alpha / 255 * g; avgB += alpha / 255 * b; avgA += alpha
        }
        if avgA > 0 { avgR /= avgA; avgG /= avgA; avgB /= avgA }
        let hasAlpha = avgA < Float(w * h)
        let limit = hasAlpha ? 5 : 7
        let lx = max(1, Int((Float(limit * w) / Float(max(w, h))).rounded())), ly = max(1, Int((Float(limit * h) / Float(max(w, h))).rounded()))
        // RGBA → LPQA, composited over the average colour.
        var (l, p, q, a) = ([Float](), [Float](), [Float](), [Float]())
        for i in 0..<(w * h) {
            let (sr, sg, sb, sa) = sample(i)
            let alpha = sa / 255
            let r = avgR * (1 - alpha) + alpha / 255 * sr, g = avgG * (1 - alpha) + alpha / 255 * sg
            let b = avgB * (1 - alpha) + alpha / 255 * sb
            l.append((r + g + b) / 3); p.append((r + g) / 2 - b); q.append(r - g); a.append(alpha)
        }
        let lum = Channel.encode(l, width: w, height: h, nx: max(3, lx), ny: max(3, ly))
        let yellowBlue = Channel.encode(p, width: w, height: h, nx: 3, ny: 3)
        let redGreen = Channel.encode(q, width: w, height: h, nx: 3, ny: 3)
        let alpha = hasAlpha ? Channel.encode(a, width: w, height: h, nx: 5, ny: 5) : nil
        let landscape = w > h
        func round(_ v: Float) -> Int { Int(v.rounded()) }
        let header24 = round(63 * lum.dc) | (round(31.5 + 31.5 * yellowBlue.dc) << 6) | (round(31.5 + 31.5 * redGreen.dc) << 12)
            | (round(31 * lum.scale) << 18) | (hasAlpha ? 1 << 23 : 0)
        let header16 = (landscape ? ly : lx) | (round(63 * yellowBlue.scale) << 3) | (round(63 * redGreen.scale) << 9) | (landscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16),
                             UInt8(header16 & 255), UInt8(header16 >> 8)]
        if let alpha { hash.append(UInt8(round(15 * alpha.dc) | (round(15 * alpha.scale) << 4))) }
        let start = hash.count
        var index = 0
        for channel in [lum, yellowBlue, redGreen] + (alpha.map { [$0] } ?? []) {
            for f in channel.ac {
                if start + index / 2 >= hash.count { hash.append(0) }
                hash[start + index / 2] |= UInt8(round(15 * f)) << ((index & 1) * 4)
                index += 1
            }
        }
        return hash
    }

    /// ``encode(_:)`` in base64, as job results and search hits carry it.
    package static func base64(_ image: PixelBuffer) -> String {
        Data(encode(image)).base64EncodedString()
    }

    /// The base64 hash of an encoded photo, decoded no larger than the hash needs (a JPEG at
    /// 1/8 of its size, in the DCT domain), upright and in sRGB as every decode is.
    package static func base64(ofPhoto bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> String {
        base64(try ImageCodec.decode(bytes, limits: limits, minimumLongSide: 100))
    }

    /// The placeholder a client would paint: at most 32 px on its long side, RGBA. Nil when
    /// `hash` is too short to be one.

    package static func decode(_ hash: [UInt8]) -> PixelBuffer? {
        guard hash.count >= 5 else { return nil }
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        let lDC = Double(header24 & 63) / 63
        let pDC = Double((header24 >> 6) & 63) / 31.5 - 1, qDC = Double((header24 >> 12) & 63) / 31.5 - 1
        let lScale = Double((header24 >> 18) & 31) / 31
        let hasAlpha = header24 >> 23 != 0
        let pScale = Double((header16 >> 3) & 63) / 63, qScale = Double((header16 >> 9) & 63) / 63
        let landscape = header16 >> 15 != 0
        guard !hasAlpha || hash.count >= 6 else { return nil }
        let lx = max(3, landscape ? (hasAlpha ? 5 : 7) : header16 & 7), ly = max(3, landscape ? header16 & 7 : (hasAlpha ? 5 : 7))
        let aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1, aScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 0
        let start = hasAlpha ? 6 : 5
        var index = 0
        func read(_ nx: Int, _ ny: Int, _ scale: Double) -> [Double]? {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    guard start + index / 2 < hash.count else { return nil }
                    let data = hash[start + index / 2] >> ((index & 1) * 4)
                    ac.append((Double(data & 15) / 7.5 - 1) * scale)
                    index += 1; cx += 1
                }
            }
            return ac
        }
        // Saturation boosted 1.25× to make up for the quantisation, as the reference does.
        guard let lAC = read(lx, ly, lScale), let pAC = read(3, 3, pScale * 1.25), let qAC = read(3, 3, qScale * 1.25) else { return nil }
        let aAC = hasAlpha ? read(5, 5, aScale) : []
        guard let aAC else { return nil }
        let ratio = aspectRatio(hash)
        let w = max(1, Int((ratio > 1 ? 32 : 32 * ratio).rounded())), h = max(1, Int((ratio > 1 ? 32 / ratio : 32).rounded()))
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                var (l, p, q, a) = (lDC, pDC, qDC, aDC)
                func fx(_ cx: Int) -> Double { cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                func fy(_ cy: Int) -> Double { cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
                var j = 0
                for cy in 0..<ly {
                    var cx = cy > 0 ? 0 : 1
                    while cx * ly < lx * (ly - cy) { l += lAC[j] * fx(cx) * fy(cy) * 2; j += 1; cx += 1 }
                }
                j = 0
                for cy in 0..<3 {
                    var cx = cy > 0 ? 0 : 1
                    while cx < 3 - cy { let f = fx(cx) * fy(cy) * 2; p += pAC[j] * f; q += qAC[j] * f; j += 1; cx += 1 }
                }
                if hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        var cx = cy > 0 ? 0 : 1
                        while cx < 5 - cy { a += aAC[j] * fx(cx) * fy(cy) * 2; j += 1; cx += 1 }
                    }
                }
                let b = l - 2.0 / 3 * p, r = (3 * l - b + q) / 2, g = r - q
                let o = (y * w + x) * 4
                for (k, v) in [r, g, b, a].enumerated() { out[o + k] = UInt8(max(0, min(1, v)) * 255 + 0.5) }
            }
        }
        return PixelBuffer(width: w, height: h, channels: 4, pixels: out)
    }

    /// The photo's approximate width ÷ height, from the hash alone.
    package static func aspectRatio(_ hash: [UInt8]) -> Double {
        guard hash.count >= 5 else { return 1 }
        let hasAlpha = hash[2] & 0x80 != 0, landscape = hash[4] & 0x80 != 0
        let lx = landscape ? (hasAlpha ? 5 : 7) : Int(hash[3] & 7), ly = landscape ? Int(hash[3] & 7) : (hasAlpha ? 5 : 7)
        return Double(max(1, lx)) / Double(max(1, ly))   // 0 only in a hash no encoder wrote
    }

    /// One channel's DCT: its constant term, its varying terms normalised to 0…1 and their scale.
    struct Channel {
        var dc: Float = 0, ac: [Float] = [], scale: Float = 0

        static func encode(_ values: [Float], width w: Int, height h: Int, nx: Int, ny: Int) -> Channel {
            var channel = Channel()
            var fx = [Float](repeating: 0, count: w)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    for x in 0..<w { fx[x] = cos(Float.pi / Float(w) * Float(cx) * (Float(x) + 0.5)) }
                    var f: Float = 0
                    for y in 0..<h {
                        let fy = cos(Float.pi / Float(h) * Float(cy) * (Float(y) + 0.5))
                        for x in 0..<w { f += values[x + y * w] * fx[x] * fy }
                    }
                    f /= Float(w * h)
                    if cx > 0 || cy > 0 {
                        channel.ac.append(f)
                        channel.scale = max(channel.scale, abs(f))
                    } else {
                        channel.dc = f
                    }
                    cx += 1
                }
            }
            if channel.scale > 0 { channel.ac = channel.ac.map { 0.5 + 0.5 / channel.scale * $0 } }
            return channel
        }
    }
}
