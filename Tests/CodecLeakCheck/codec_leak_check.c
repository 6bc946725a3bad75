// The C codec layer under AddressSanitizer/LeakSanitizer (run by ./ops/check-codecs, which
// ./ops/test calls): every format is encoded from a generated picture, then decoded and probed
// whole, cut at many lengths, with bytes flipped, as a progressive-scan bomb and as a huge
// header. Every call must return (no crash), free what it allocated (no leak) and touch no
// memory it does not own. Exits non-zero when a call that must fail succeeds. Colour: every
// input also goes through the four profile carriers and the transform to sRGB, and the cases
// include a Display P3-tagged JPEG and CMYK JPEGs (with a profile, and without one so the
// standard profile is used).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "atelier_codecs.h"
#include "atelier_color.h"
#include "atelier_color_fixtures.h"  // Tests/CAtelierColorFixtures: a P3 profile, CMYK JPEGs

static uint8_t *standard_cmyk = NULL;  // Ghostscript's default CMYK profile, when installed
static size_t standard_cmyk_size = 0;

static int failures = 0;
static unsigned long long calls = 0;

static void picture(uint8_t *pixels, int width, int height, int channels) {
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            uint8_t *p = pixels + ((size_t)y * width + x) * channels;
            p[0] = (uint8_t)(x * 255 / (width - 1));
            p[1] = (uint8_t)(y * 255 / (height - 1));
            p[2] = (uint8_t)(((x / 8 + y / 8) % 2) ? 200 : 60);
            if (channels == 4) p[3] = (uint8_t)(255 - (x + y) % 64);
        }
    }
}

// Decodes into `target` exactly as large as the probe said, then into one a byte short (which
// must be refused without a write past its end: ASan watches). Returns 1 when it decoded.
typedef int (*decoder)(const uint8_t *, size_t, uint64_t, uint8_t *, size_t, ac_result *);
typedef int (*prober)(const uint8_t *, size_t, ac_result *);

static int decode_as(prober probe, decoder decode, const uint8_t *data, size_t size) {
    ac_result result;
    int decoded = 0;
    calls += 2;
    if (decode(data, size, 50000000ULL, NULL, 0, &result) == AC_OK) {
        fprintf(stderr, "FAIL a decoder wrote into no buffer\n");
        failures++;
    }
    if (probe(data, size, &result) != AC_OK || result.width <= 0 || result.height <= 0
        || (uint64_t)result.width * result.height > 50000000ULL) return 0;
    int channels = result.channels;
    size_t capacity = (size_t)result.width * result.height * channels;
    uint8_t *target = malloc(capacity);
    if (decode(data, size, 50000000ULL, target, capacity, &result) == AC_OK) {
        decoded = 1;
        if (result.channels != channels) { fprintf(stderr, "FAIL decoded channels differ from the probe's\n"); failures++; }
    }
    free(target);
    if (capacity > 1) {
        target = malloc(capacity - 1);
        if (decode(data, size, 50000000ULL, target, capacity - 1, &result) == AC_OK) {
            fprintf(stderr, "FAIL a decoder accepted a buffer a byte short\n");
            failures++;
        }
        free(target);
    }
    calls += 2;
    return decoded;
}

// Decodes and probes `data` as every format (the sniffing happens in Swift; here each decoder
// meets every kind of bytes). Returns how many decoders accepted it.
static int exercise(const uint8_t *data, size_t size) {
    ac_result result;
    int accepted = 0;
    size_t capacity = 0;

    if (ac_jpeg_probe(data, size, &result) == AC_OK && result.width > 0 && result.height > 0
        && (uint64_t)result.width * result.height <= 50000000ULL) {
        capacity = (size_t)result.width * result.height * 3;
        uint8_t *target = malloc(capacity);
        for (int k = 8; k >= 1; k -= 3) {
            if (ac_jpeg_decode_into(data, size, k, 50000000ULL, 100, standard_cmyk, standard_cmyk_size, target, capacity,
                                    &result) == AC_OK) accepted++;
            calls++;
        }
        free(target);
    }
    // The colour carriers read every kind of bytes; what they find is turned into a transform and
    // run over a few rows.
    int (*carriers[4])(const uint8_t *, size_t, ac_color_source *) = {ac_jpeg_color, ac_png_color, ac_heif_color, ac_webp_color};
    for (int c = 0; c < 4; c++) {
        ac_color_source source;
        char note[160], description[64];
        uint8_t rows[16 * 4 * 4];
        memset(rows, 100, sizeof rows);
        carriers[c](data, size, &source);
        for (int channels = 3; channels <= 4; channels++) {
            ac_color_transform *transform = ac_color_prepare(&source, channels, note, description);
            ac_color_apply(transform, rows, 16, 4 * 3 / channels);
            ac_color_release(transform);
        }
        ac_color_source_free(&source);
        calls += 3;
    }
    accepted += decode_as(ac_png_probe, ac_png_decode_into, data, size);
    accepted += decode_as(ac_heif_probe, ac_heif_decode_into, data, size);
    accepted += decode_as(ac_webp_probe, ac_webp_decode_into, data, size);
    calls += 1;
    return accepted;
}

static void torture(const char *name, const uint8_t *data, size_t size) {
    if (exercise(data, size) == 0) {
        fprintf(stderr, "FAIL %s: the valid file was not decoded\n", name);
        failures++;
    }
    // Cut at 40 lengths, including 0 and 1 byte.
    for (int i = 0; i < 40; i++) exercise(data, size * (size_t)i / 40);
    // 200 variants with 1–8 bytes overwritten (a fixed LCG: the same run every time).
    uint8_t *copy = malloc(size);
    unsigned state = 12345;
    for (int variant = 0; variant < 200; variant++) {
        memcpy(copy, data, size);
        int flips = 1 + variant % 8;
        for (int f = 0; f < flips; f++) {
            state = state * 1103515245u + 12345u;
            copy[(state >> 8) % size] = (uint8_t)(state >> 24);
        }
        exercise(copy, size);
    }
    free(copy);
}

typedef int (*encoder)(const uint8_t *, int, int, int, int, uint8_t **, size_t *, ac_result *);

static int heic_encode(const uint8_t *p, int w, int h, int c, int q, uint8_t **out, size_t *size, ac_result *r) {
    return ac_heif_encode(p, w, h, c, q, 6, out, size, r);
}
static int jpeg_baseline(const uint8_t *p, int w, int h, int c, int q, uint8_t **out, size_t *size, ac_result *r) {
    return ac_jpeg_encode(p, w, h, c, q, 0, out, size, r);
}
static int jpeg_progressive(const uint8_t *p, int w, int h, int c, int q, uint8_t **out, size_t *size, ac_result *r) {
    return ac_jpeg_encode(p, w, h, c, q, 1, out, size, r);
}
static int png_encode(const uint8_t *p, int w, int h, int c, int q, uint8_t **out, size_t *size, ac_result *r) {
    (void)q;
    return ac_png_encode(p, w, h, c, out, size, r);
}

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *bytes = length > 0 ? malloc((size_t)length) : NULL;
    if (bytes != NULL && fread(bytes, 1, (size_t)length, file) != (size_t)length) { free(bytes); bytes = NULL; }
    fclose(file);
    *size = bytes != NULL ? (size_t)length : 0;
    return bytes;
}

// Colour-tagged and CMYK files, each tortured like the others.
static void torture_color(const uint8_t *rgb, int width, int height) {
    // A Display P3 profile (lcms2), put into a JPEG of ours in APP2 chunks of 200 bytes (so cuts
    // and flips land in the reassembly).
    size_t icc_size = 0;
    uint8_t *icc = acf_rgb_profile(12, "Display P3", &icc_size);

    uint8_t *jpeg = NULL;
    size_t jpeg_size = 0;
    ac_result result;
    if (ac_jpeg_encode(rgb, width, height, 3, 90, 0, &jpeg, &jpeg_size, &result) == AC_OK) {
        size_t chunks = (icc_size + 199) / 200, tagged_size = jpeg_size + chunks * 18 + icc_size;
        uint8_t *tagged = malloc(tagged_size);
        size_t at = 2;
        memcpy(tagged, jpeg, 2);
        for (size_t i = 0; i < chunks; i++) {
            size_t piece = icc_size - i * 200 < 200 ? icc_size - i * 200 : 200, length = piece + 16;
            const uint8_t head[4] = {0xFF, 0xE2, (uint8_t)(length >> 8), (uint8_t)length};
            memcpy(tagged + at, head, 4);
            memcpy(tagged + at + 4, "ICC_PROFILE\0", 12);
            tagged[at + 16] = (uint8_t)(i + 1);
            tagged[at + 17] = (uint8_t)chunks;
            memcpy(tagged + at + 18, icc + i * 200, piece);
            at += 18 + piece;
        }
        memcpy(tagged + at, jpeg + 2, jpeg_size - 2);
        torture("jpeg with a Display P3 profile", tagged, at + jpeg_size - 2);
        free(tagged);
        ac_free(jpeg);
    }
    free(icc);

    size_t ps_size = 0;
    uint8_t *ps_cmyk = read_file("/usr/share/color/icc/ghostscript/ps_cmyk.icc", &ps_size);
    // CMYK as Photoshop stores it (inverted): ink = 255 − light, K = the least ink.
    uint8_t *cmyk = malloc((size_t)width * height * 4);
    for (int i = 0; i < width * height; i++) {
        int c = 255 - rgb[i * 3], m = 255 - rgb[i * 3 + 1], y = 255 - rgb[i * 3 + 2];
        int k = c < m ? (c < y ? c : y) : (m < y ? m : y);
        cmyk[i * 4] = (uint8_t)(255 - (c - k));
        cmyk[i * 4 + 1] = (uint8_t)(255 - (m - k));
        cmyk[i * 4 + 2] = (uint8_t)(255 - (y - k));
        cmyk[i * 4 + 3] = (uint8_t)(255 - k);
    }
    for (int ycck = 0; ycck <= 1; ycck++) {
        for (int tagged = 0; tagged <= 1; tagged++) {
            uint8_t *file = NULL;
            size_t size = 0;
            acf_jpeg_encode_cmyk(cmyk, width, height, ycck, tagged ? ps_cmyk : NULL, ps_size, &file, &size);
            torture(ycck ? (tagged ? "ycck jpeg with a profile" : "ycck jpeg") : (tagged ? "cmyk jpeg with a profile" : "cmyk jpeg"),
                    file, size);
            free(file);
        }
    }
    free(ps_cmyk);
    free(cmyk);
}

int main(void) {
    const int width = 97, height = 61;
    uint8_t *rgb = malloc((size_t)width * height * 3), *rgba = malloc((size_t)width * height * 4);
    picture(rgb, width, height, 3);
    picture(rgba, width, height, 4);
    standard_cmyk = read_file("/usr/share/color/icc/ghostscript/default_cmyk.icc", &standard_cmyk_size);
    torture_color(rgb, width, height);
    struct { const char *name; encoder encode; int channels; int quality; } cases[] = {
        {"jpeg", jpeg_baseline, 3, 90}, {"progressive jpeg", jpeg_progressive, 3, 90},
        {"png rgb", png_encode, 3, 0}, {"png rgba", png_encode, 4, 0},
        {"webp lossy", ac_webp_encode, 3, 80}, {"webp lossless rgba", ac_webp_encode, 4, 101},
        {"heic", heic_encode, 3, 60},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *file = NULL;
        size_t size = 0;
        ac_result result;
        if (cases[i].encode(cases[i].channels == 4 ? rgba : rgb, width, height, cases[i].channels, cases[i].quality,
                            &file, &size, &result) != AC_OK) {
            fprintf(stderr, "FAIL %s: encoding failed: %s\n", cases[i].name, result.message);
            failures++;
            continue;
        }
        torture(cases[i].name, file, size);
        // Progressive JPEGs made of 300 copies of one scan: refused, not decoded 300 times. The
        // first scan (DC) decodes the same on every repeat, so only the scan limit stops it; a
        // repeated refinement scan no longer fits the coefficients and is damaged data by the
        // second copy (either refusal will do there).
        if (i == 1) {
            size_t first = 0, first_end = 0, last = 0;
            for (size_t j = 2; j + 1 < size; j++) {
                if (file[j] == 0xFF && file[j + 1] == 0xDA) { if (first == 0) first = j; last = j; }
            }
            // The first scan ends at the first marker after its header that is not a stuffed
            // byte or a restart marker.
            size_t header_end = first + 2 + ((size_t)file[first + 2] << 8 | file[first + 3]);
            for (size_t j = header_end; j + 1 < size && first_end == 0; j++) {
                if (file[j] == 0xFF && file[j + 1] != 0x00 && (file[j + 1] < 0xD0 || file[j + 1] > 0xD7)) first_end = j;
            }
            struct { const char *name; size_t from, to; int only_scan_limit; } bombs[] = {
                {"scan bomb (first scan)", first, first_end, 1}, {"scan bomb (last scan)", last, size - 2, 0},
            };
            for (int b = 0; b < 2; b++) {
                size_t scan = bombs[b].to - bombs[b].from, bomb_size = bombs[b].to + 299 * scan + 2;
                uint8_t *bomb = malloc(bomb_size);
                memcpy(bomb, file, bombs[b].to);
                for (int k = 0; k < 299; k++) memcpy(bomb + bombs[b].to + (size_t)k * scan, file + bombs[b].from, scan);
                bomb[bomb_size - 2] = 0xFF; bomb[bomb_size - 1] = 0xD9;
                size_t capacity = (size_t)width * height * 3;
                uint8_t *target = malloc(capacity);
                int code = ac_jpeg_decode_into(bomb, bomb_size, 8, 50000000ULL, 100, NULL, 0, target, capacity, &result);
                if (code != AC_TOO_LARGE && (bombs[b].only_scan_limit || code != AC_CORRUPT)) {
                    fprintf(stderr, "FAIL %s: not refused by the scan limit (%d %s)\n", bombs[b].name, result.code, result.message);
                    failures++;
                }
                calls++;
                free(target);
                free(bomb);
            }
        }
        // The same file with a header claiming 100000 × 100000 (PNG): refused before allocating.
        if (i == 2) {
            uint8_t *huge = malloc(size);
            memcpy(huge, file, size);
            const uint8_t side[4] = {0x00, 0x01, 0x86, 0xA0};
            memcpy(huge + 16, side, 4);
            memcpy(huge + 20, side, 4);
            uint8_t pixels[16];
            int code = ac_png_decode_into(huge, size, 50000000ULL, pixels, sizeof pixels, &result);
            if (code == AC_OK) { fprintf(stderr, "FAIL huge PNG header decoded\n"); failures++; }
            free(huge);
        }
        ac_free(file);
    }
    // AVIF is written, never read (variants): every encode frees what it made, and refuses
    // shapes it cannot take without touching the pixels.
    for (int channels = 3; channels <= 4; channels++) {
        uint8_t *file = NULL;
        size_t size = 0;
        ac_result result;
        int code = ac_avif_encode(channels == 4 ? rgba : rgb, width, height, channels, 60, 8, &file, &size, &result);
        if (code != AC_OK || size < 12 || memcmp(file + 4, "ftypavif", 8) != 0) {
            fprintf(stderr, "FAIL avif %d channels: %s\n", channels, code == AC_OK ? "not an AVIF file" : result.message);
            failures++;
        }
        ac_free(file);
    }
    {
        uint8_t *file = NULL;
        size_t size = 0;
        ac_result result;
        if (ac_avif_encode(rgb, 0, height, 3, 60, 8, &file, &size, &result) != AC_UNSUPPORTED || file != NULL
            || ac_avif_encode(rgb, width, height, 2, 60, 8, &file, &size, &result) != AC_UNSUPPORTED || file != NULL) {
            fprintf(stderr, "FAIL avif accepted a shape it cannot take\n");
            failures++;
        }
    }
    free(rgb);
    free(rgba);
    free(standard_cmyk);
    printf("codec check: %llu decoder calls on valid, cut, corrupted and hostile files; %d failure(s)\n", calls, failures);
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}
