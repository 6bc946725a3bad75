// atelier_codecs — a small C layer over libjpeg-turbo, libpng, libheif and libwebp.
//
// Every libjpeg call stays in C: its error handler longjmps, which Swift cannot survive, so
// errors come back as a code and a message in `ac_result`. Encoder outputs are malloc'd; free
// them with `ac_free`. Decoders write into the caller's buffer, sized from the probe (the Swift
// pixel buffer itself: no C-side copy of the picture); they read the header first and refuse
// images over `max_pixels`, or a buffer too small, before writing a pixel.
//
// A truncated or damaged file is AC_CORRUPT, never a partial picture: libjpeg's corrupt-data
// warnings (premature end of the file or of a data segment, bad Huffman/arithmetic codes, a lost
// restart marker) end the decode; the probes already refuse a JPEG with no EOI after its first
// scan, a PNG whose chunks run past the end of the data or never reach IEND, a WebP shorter than
// its RIFF header says and a HEIF whose items point past the end (or past their 'idat'), whose
// item references loop, or whose grid canvas or HEVC picture is larger than its 'ispe' (libheif
// 1.15 would allocate what those say; heif_structure.c); libheif decodes strictly. The
// message in `ac_result` may quote the library: it is for logs and tools, not for clients.
#ifndef ATELIER_CODECS_H
#define ATELIER_CODECS_H

#include <stddef.h>
#include <stdint.h>

enum {
    AC_OK = 0,
    AC_CORRUPT = 1,     // not a valid file of that format (or truncated beyond repair)
    AC_TOO_LARGE = 2,   // over the pixel or scan limit
    AC_NO_MEMORY = 3,
    AC_UNSUPPORTED = 4, // valid but not something we decode (e.g. an animated WebP)
};

typedef struct {
    int code;
    int width;          // of the decoded pixels (after DCT scaling)
    int height;
    int source_width;   // as the header says
    int source_height;
    int channels;       // of the decoded pixels: 3 (RGB) or 4 (RGBA); a probe says what a decode gives
    int color_done;     // the decoder already gave sRGB (a CMYK JPEG converted, an HDR HEIC tone-mapped):
                        // no colour conversion after it
    int tone_mapped;    // an HDR HEIC (PQ or HLG) tone-mapped to 8-bit SDR
    char note[160];     // what the decode could not honour, for the job's log (a CMYK profile ignored)
    char message[200];
} ac_result;

// Probes read only the header: format validity, the size (width/height = source size) and the
// channels a decode gives. Nothing is decoded and no pixel memory allocated. AC_UNSUPPORTED for
// a valid file we would refuse to decode (an animated WebP).
int ac_jpeg_probe(const uint8_t *data, size_t size, ac_result *result);
int ac_png_probe(const uint8_t *data, size_t size, ac_result *result);
int ac_heif_probe(const uint8_t *data, size_t size, ac_result *result);
int ac_webp_probe(const uint8_t *data, size_t size, ac_result *result);

// JPEG → RGB8 (3 bytes per pixel, rows packed), decoded straight into `target` (`capacity`
// bytes; it must hold ceil(width·k/8) × ceil(height·k/8) × 3). `scale_eighths` k ∈ 1…8:
// DCT-domain scaling to k/8 of the size during decode (8 = full size). `max_scans` bounds
// progressive scans (decompression bombs). A CMYK or YCCK JPEG is converted to sRGB while it is
// decoded, through its own ICC profile or `cmyk_profile` (a standard CMYK profile; may be NULL),
// and says so in `color_done` (and in `note` when a profile was missing or broken).
int ac_jpeg_decode_into(const uint8_t *data, size_t size, int scale_eighths, uint64_t max_pixels, int max_scans,
                        const uint8_t *cmyk_profile, size_t cmyk_profile_size,
                        uint8_t *target, size_t capacity, ac_result *result);

// RGB8 (channels 3) or gray (channels 1) → JPEG at `quality` 1…100, baseline or progressive.
// RGB is tagged sRGB (an ICC profile in APP2); nothing else is written.
int ac_jpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                   uint8_t **out, size_t *out_size, ac_result *result);

// PNG (8/16-bit, palette, gray, alpha) → RGBA8 when it has alpha (an alpha channel or tRNS),
// else RGB8, decoded straight into `target` (`capacity` bytes ≥ width × height × channels, as
// ac_png_probe says).
int ac_png_decode_into(const uint8_t *data, size_t size, uint64_t max_pixels,
                       uint8_t *target, size_t capacity, ac_result *result);

// RGBA8 (channels 4) or RGB8 (channels 3) → PNG, tagged sRGB (an sRGB chunk, libpng's simplified writer).
int ac_png_encode(const uint8_t *pixels, int width, int height, int channels,
                  uint8_t **out, size_t *out_size, ac_result *result);

// HEIC/HEIF (primary image, the file's own rotation/mirroring applied by libheif) → RGB8, or
// RGBA8 when it has alpha (as ac_heif_probe says), copied row by row from libheif's image into
// `target` (`capacity` bytes ≥ width × height × channels).
int ac_heif_decode_into(const uint8_t *data, size_t size, uint64_t max_pixels,
                        uint8_t *target, size_t capacity, ac_result *result);
// RGB8/RGBA8 → HEIC (HEVC via x265) at `quality` 0…100; `orientation` 1…8 (EXIF numbering)
// is written as irot/imir boxes, so a decoder shows the pixels turned that way. Tagged sRGB (nclx).
int ac_heif_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int orientation,
                   uint8_t **out, size_t *out_size, ac_result *result);

// WebP (still; lossy or lossless) → RGB8, or RGBA8 when it has alpha (as ac_webp_probe says),
// decoded straight into `target` (`capacity` bytes ≥ width × height × channels).
int ac_webp_decode_into(const uint8_t *data, size_t size, uint64_t max_pixels,
                        uint8_t *target, size_t capacity, ac_result *result);
// RGB8/RGBA8 → WebP, lossy at `quality` 0…100, lossless when `quality` > 100; tagged sRGB (an ICCP chunk).
int ac_webp_encode(const uint8_t *pixels, int width, int height, int channels, int quality,
                   uint8_t **out, size_t *out_size, ac_result *result);
// RGB8/RGBA8 → AVIF (AV1 by libaom through libavif), 4:2:0, at `quality` 0…100 (AV1's quantizer
// 63…0) and encoder `speed` 0 (slowest) … 10 (fastest), one thread; tagged sRGB (nclx).
int ac_avif_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int speed,
                   uint8_t **out, size_t *out_size, ac_result *result);

void ac_free(void *pointer);

#endif
