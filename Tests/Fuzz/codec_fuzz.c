// libFuzzer target for the C codec layer (Sources/CAtelierCodecs): one format per binary,
// chosen when compiling (-DAC_FUZZ_JPEG, -DAC_FUZZ_PNG, -DAC_FUZZ_HEIC or -DAC_FUZZ_WEBP).
// ./ops/fuzz builds it with clang -fsanitize=fuzzer,address.
//
// Each input goes through the production path: the header probe, the limits the Swift side
// checks (ImageLimits: 50 MP, 20000 px a side), then a decode into a buffer of exactly the size
// the probe promised, then the colour carrier and the transform to sRGB over the decoded rows.
// Besides the sanitizers' findings, a broken promise aborts (and so counts as a crash): a decode
// that succeeds must produce the probed size and channels, a decode into a buffer that is too
// small must refuse, and a file the probe refused must not decode.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atelier_codecs.h"
#include "atelier_color.h"

#define MAX_PIXELS 50000000ULL  // ImageLimits.maxPixels
#define MAX_SIDE 20000          // ImageLimits.maxDimension
#define MAX_SCANS 100           // ImageLimits.maxScans

static void broken(const char *promise, const ac_result *result) {
    fprintf(stderr, "broken promise: %s (code %d, %dx%d, source %dx%d, %d channels: %s)\n", promise, result->code,
            result->width, result->height, result->source_width, result->source_height, result->channels, result->message);
    abort();
}

static int probe(const uint8_t *data, size_t size, ac_result *result) {
#if defined(AC_FUZZ_JPEG)
    return ac_jpeg_probe(data, size, result);
#elif defined(AC_FUZZ_PNG)
    return ac_png_probe(data, size, result);
#elif defined(AC_FUZZ_HEIC)
    return ac_heif_probe(data, size, result);
#elif defined(AC_FUZZ_WEBP)
    return ac_webp_probe(data, size, result);
#else
#error "define AC_FUZZ_JPEG, AC_FUZZ_PNG, AC_FUZZ_HEIC or AC_FUZZ_WEBP"
#endif
}

static int decode(const uint8_t *data, size_t size, int eighths, uint8_t *target, size_t capacity, ac_result *result) {
#if defined(AC_FUZZ_JPEG)
    return ac_jpeg_decode_into(data, size, eighths, MAX_PIXELS, MAX_SCANS, NULL, 0, target, capacity, result);
#elif defined(AC_FUZZ_PNG)
    (void)eighths;
    return ac_png_decode_into(data, size, MAX_PIXELS, target, capacity, result);
#elif defined(AC_FUZZ_HEIC)
    (void)eighths;
    return ac_heif_decode_into(data, size, MAX_PIXELS, target, capacity, result);
#else
    (void)eighths;
    return ac_webp_decode_into(data, size, MAX_PIXELS, target, capacity, result);
#endif
}

static int color(const uint8_t *data, size_t size, ac_color_source *source) {
#if defined(AC_FUZZ_JPEG)
    return ac_jpeg_color(data, size, source);
#elif defined(AC_FUZZ_PNG)
    return ac_png_color(data, size, source);
#elif defined(AC_FUZZ_HEIC)
    return ac_heif_color(data, size, source);
#else
    return ac_webp_color(data, size, source);
#endif
}

// For ./ops/fuzz's cost check (cost_check.c): the pixels the header declares, 0 when refused.
uint64_t probe_pixels(const uint8_t *data, size_t size);
uint64_t probe_pixels(const uint8_t *data, size_t size) {
    ac_result header;
    if (probe(data, size, &header) != AC_OK) return 0;
    return (uint64_t)header.source_width * (uint64_t)header.source_height;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ac_result header, result;
    int probed = probe(data, size, &header);
    // With no buffer, no decoder may write a pixel: it must refuse (and free what it took).
    if (decode(data, size, 8, NULL, 0, &result) == AC_OK) broken("decoded into no buffer", &result);
    if (probed != AC_OK) return 0;
    if (header.width <= 0 || header.height <= 0 || (header.channels != 3 && header.channels != 4)) {
        broken("the probe accepted an image without a shape", &header);
    }
    if (header.source_width > MAX_SIDE || header.source_height > MAX_SIDE
        || (uint64_t)header.source_width * (uint64_t)header.source_height > MAX_PIXELS) {
        return 0;  // refused by ImageLimits before any decode
    }
    // JPEG: a DCT scale from the input's length, so every k/8 gets its turn.
    int eighths = 8;
#if defined(AC_FUZZ_JPEG)
    eighths = 1 + (int)(size % 8);
#endif
    size_t width = ((size_t)header.source_width * (size_t)eighths + 7) / 8;
    size_t height = ((size_t)header.source_height * (size_t)eighths + 7) / 8;
    size_t capacity = width * height * (size_t)header.channels;
    uint8_t *target = malloc(capacity);
    if (target == NULL) return 0;
    // One byte short: refused, never written past.
    if (decode(data, size, eighths, target, capacity - 1, &result) == AC_OK) broken("decoded into a buffer too small", &result);
    int code = decode(data, size, eighths, target, capacity, &result);
    if (code == AC_OK) {
        if ((size_t)result.width != width || (size_t)result.height != height || result.channels != header.channels) {
            broken("decoded to another shape than the probe said", &result);
        }
        // Touch every byte: ASan/MSan-style proof the decoder wrote the buffer it claims to.
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < capacity; i += 4096) sink ^= target[i];
        (void)sink;
        // The colour path as ImageCodec takes it: the carrier, then the transform over every row.
        if (!result.color_done) {
            ac_color_source source;
            char note[160], description[64];
            color(data, size, &source);
            ac_color_transform *transform = ac_color_prepare(&source, result.channels, note, description);
            ac_color_apply(transform, target, result.width, result.height);
            ac_color_release(transform);
            ac_color_source_free(&source);
        }
    } else if (code != AC_CORRUPT && code != AC_TOO_LARGE && code != AC_NO_MEMORY && code != AC_UNSUPPORTED) {
        broken("an unknown result code", &result);
    }
    free(target);
    return 0;
}
