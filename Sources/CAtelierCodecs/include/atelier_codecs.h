// atelier_codecs — a small C layer over libjpeg-turbo and libpng.
//
// Every libjpeg call stays in C: its error handler longjmps, which Swift cannot survive, so
// errors come back as a code and a message in `ac_result`. Outputs are malloc'd; free them
// with `ac_free`. Decoders read the header first and refuse images over `max_pixels` before
// allocating any pixel memory.
#ifndef ATELIER_CODECS_H
#define ATELIER_CODECS_H

#include <stddef.h>
#include <stdint.h>

enum {
    AC_OK = 0,
    AC_CORRUPT = 1,     // not a valid file of that format (or truncated beyond repair)
    AC_TOO_LARGE = 2,   // over the pixel or scan limit
    AC_NO_MEMORY = 3,
    AC_UNSUPPORTED = 4, // valid but not something we decode (e.g. CMYK JPEG)
};

typedef struct {
    int code;
    int width;          // of the decoded pixels (after DCT scaling)
    int height;
    int source_width;   // as the header says
    int source_height;
    char message[200];
} ac_result;

// JPEG → RGB8 (3 bytes per pixel, rows packed). `scale_denom` ∈ {1, 2, 4, 8}: DCT-domain
// downscaling during decode. `max_scans` bounds progressive scans (decompression bombs).
int ac_jpeg_decode(const uint8_t *data, size_t size, int scale_denom, uint64_t max_pixels, int max_scans,
                   uint8_t **pixels, ac_result *result);

// RGB8 (channels 3) or gray (channels 1) → JPEG at `quality` 1…100, baseline or progressive.
// No metadata written.
int ac_jpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                   uint8_t **out, size_t *out_size, ac_result *result);

// PNG (8/16-bit, palette, gray, alpha) → RGBA8.
int ac_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, uint8_t **pixels, ac_result *result);

// RGBA8 (channels 4) or RGB8 (channels 3) → PNG.
int ac_png_encode(const uint8_t *pixels, int width, int height, int channels,
                  uint8_t **out, size_t *out_size, ac_result *result);

void ac_free(void *pointer);

#endif
