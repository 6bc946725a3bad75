// Colour management through lcms2: source profiles (ICC, or built from HEIF nclx primaries and
// transfer), transforms to sRGB, a small cache of them, and the sRGB profile the encoders embed.
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <lcms2.h>

#include "atelier_color.h"
#include "color_budget.h"
#include "heif_hdr.h"

// A matrix-shaper source (an RGB profile made of three curves and a matrix, with no LUT for the
// perceptual intent: Display P3, Adobe RGB, every nclx description) is transformed by our own
// kernel: the source curves as 256-entry tables to linear light, one 3 × 3 matrix to linear sRGB
// (the two profiles' colorants, both adapted to D50), clipping, and sRGB's curve as a 16384-entry
// table. lcms2 computes the same thing (perceptual falls back to colorimetric for matrix-shapers)
// more slowly (BENCHMARKS.md, "Colour management"); every other profile goes through lcms2's
// transform.
#define AC_OUT_STEPS 16384

typedef struct {
    float linear[3][256];
    float matrix[9];
    uint8_t encode[AC_OUT_STEPS + 1];
} ac_matrix_shaper;

struct ac_color_transform {
    cmsHTRANSFORM transform;  // NULL for the arithmetic CMYK conversion and the matrix-shaper kernel
    ac_matrix_shaper *shaper; // the matrix-shaper kernel's tables, or NULL
    int channels;             // of the pixels the kernel transforms
    int references;           // its users and the cache (under ac_cache_lock): freed at 0
    int inverted;             // arithmetic CMYK: Adobe's inverted values
};

void ac_color_source_free(ac_color_source *source) {
    if (source == NULL) return;
    free(source->icc);
    source->icc = NULL;
    source->icc_size = 0;
}

// ---- the sRGB target -------------------------------------------------------------------------

static pthread_once_t ac_srgb_once = PTHREAD_ONCE_INIT;
static uint8_t *ac_srgb_bytes = NULL;
static cmsUInt32Number ac_srgb_size = 0;
static cmsCIEXYZ ac_srgb_colorants[3];

static void ac_srgb_build(void) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (srgb == NULL) return;
    cmsUInt32Number size = 0;
    if (cmsSaveProfileToMem(srgb, NULL, &size) && size > 0) {
        uint8_t *bytes = malloc(size);
        if (bytes != NULL && cmsSaveProfileToMem(srgb, bytes, &size)) {
            ac_srgb_bytes = bytes;
            ac_srgb_size = size;
        } else {
            free(bytes);
        }
    }
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int i = 0; i < 3; i++) {
        const cmsCIEXYZ *xyz = cmsReadTag(srgb, tags[i]);
        if (xyz != NULL) ac_srgb_colorants[i] = *xyz;
    }
    cmsCloseProfile(srgb);
}

const uint8_t *ac_srgb_icc(size_t *size) {
    pthread_once(&ac_srgb_once, ac_srgb_build);
    *size = ac_srgb_size;
    return ac_srgb_bytes;
}

static double ac_srgb_curve(double v) {
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

// sRGB in all but its bytes: an RGB matrix-shaper whose colorants match lcms2's sRGB (within
// 0.002, s15Fixed16 rounding and other makers' adaptation) and whose curves follow sRGB's within
// half an 8-bit step.
static int ac_profile_is_srgb(cmsHPROFILE profile) {
    pthread_once(&ac_srgb_once, ac_srgb_build);
    if (cmsGetColorSpace(profile) != cmsSigRgbData || !cmsIsMatrixShaper(profile)) return 0;
    const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int i = 0; i < 3; i++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, colorants[i]);
        if (xyz == NULL) return 0;
        if (fabs(xyz->X - ac_srgb_colorants[i].X) > 0.002 || fabs(xyz->Y - ac_srgb_colorants[i].Y) > 0.002
            || fabs(xyz->Z - ac_srgb_colorants[i].Z) > 0.002) return 0;
        const cmsToneCurve *curve = cmsReadTag(profile, curves[i]);
        if (curve == NULL) return 0;
        for (int step = 0; step <= 32; step++) {
            double v = step / 32.0;
            if (fabs(cmsEvalToneCurveFloat(curve, (cmsFloat32Number)v) - ac_srgb_curve(v)) > 0.5 / 255.0) return 0;
        }
    }
    return 1;
}

int ac_icc_is_srgb(const uint8_t *icc, size_t size) {
    if (icc == NULL || size < 132) return 0;
    ac_lcms_budget_begin(size);
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    int srgb = profile != NULL && ac_profile_is_srgb(profile);
    if (profile != NULL) cmsCloseProfile(profile);
    ac_lcms_budget_end(NULL);
    return srgb;
}

// ---- profiles from HEIF nclx (ITU-T H.273) ---------------------------------------------------

// Primaries (x, y of red, green, blue) and white point; 0 when the code is not one we know.
static int ac_nclx_primaries(int code, cmsCIExyYTRIPLE *primaries, cmsCIExyY *white) {
    const double d65[2] = {0.3127, 0.3290};
    double p[6];
    const double *w = d65;
    static const double dci_white[2] = {0.314, 0.351};
    switch (code) {
    case 1: { const double v[6] = {0.640, 0.330, 0.300, 0.600, 0.150, 0.060}; memcpy(p, v, sizeof p); break; }   // BT.709 / sRGB
    case 5: { const double v[6] = {0.640, 0.330, 0.290, 0.600, 0.150, 0.060}; memcpy(p, v, sizeof p); break; }   // BT.601 625
    case 6: case 7: { const double v[6] = {0.630, 0.340, 0.310, 0.595, 0.155, 0.070}; memcpy(p, v, sizeof p); break; }  // BT.601 525
    case 9: { const double v[6] = {0.708, 0.292, 0.170, 0.797, 0.131, 0.046}; memcpy(p, v, sizeof p); break; }   // BT.2020
    case 11: { const double v[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060}; memcpy(p, v, sizeof p); w = dci_white; break; }  // DCI-P3
    case 12: { const double v[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060}; memcpy(p, v, sizeof p); break; }  // Display P3
    default: return 0;
    }
    *primaries = (cmsCIExyYTRIPLE){{p[0], p[1], 1}, {p[2], p[3], 1}, {p[4], p[5], 1}};
    *white = (cmsCIExyY){w[0], w[1], 1};
    return 1;
}

static cmsToneCurve *ac_nclx_curve(int code) {
    switch (code) {
    case 2: case 13: {  // unspecified (read as sRGB, as browsers do) · sRGB
        const cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
        return cmsBuildParametricToneCurve(NULL, 4, srgb);
    }
    case 1: case 6: case 14: case 15: {  // BT.709 / BT.601 / BT.2020: the inverse of their OETF
        const cmsFloat64Number bt709[5] = {1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081};
        return cmsBuildParametricToneCurve(NULL, 4, bt709);
    }
    case 4: return cmsBuildGamma(NULL, 2.2);
    case 5: return cmsBuildGamma(NULL, 2.8);
    case 8: return cmsBuildGamma(NULL, 1.0);
    default: return NULL;
    }
}

// ---- the cache -------------------------------------------------------------------------------

// Transforms by profile, for the process. Eight slots; when they are full a new profile takes the
// slot of the least recently used entry that was only ever used once, or, when every entry has
// been used again, of the least recently used one. So a profile in steady use (an iPhone's
// Display P3) stays however many one-off profiles pass through, and profiles that stopped coming
// make room for new ones instead of holding their slots for ever.
#define AC_CACHE_SIZE 8

typedef struct {
    uint64_t hash;
    size_t size;
    int kind;             // channels (3, 4), or 10 + inverted for CMYK
    uint8_t *bytes;       // the key's bytes, compared whole on a hash match
    ac_color_transform *transform;
    uint64_t used;        // the cache's clock when last found or kept
    uint64_t uses;        // how often it was found, + 1
} ac_cache_entry;

static pthread_mutex_t ac_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static ac_cache_entry ac_cache[AC_CACHE_SIZE];
static uint64_t ac_cache_clock = 0;

static uint64_t ac_fnv1a(const uint8_t *bytes, size_t size) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < size; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    return hash;
}

static ac_cache_entry *ac_cache_entry_for(const uint8_t *key, size_t size, int kind, uint64_t hash) {
    for (int i = 0; i < AC_CACHE_SIZE; i++) {
        ac_cache_entry *entry = &ac_cache[i];
        if (entry->transform != NULL && entry->hash == hash && entry->size == size && entry->kind == kind
            && memcmp(entry->bytes, key, size) == 0) return entry;
    }
    return NULL;
}

// The cached transform for the key, with a reference for the caller (ac_color_release), or NULL.
static ac_color_transform *ac_cache_find(const uint8_t *key, size_t size, int kind, uint64_t hash) {
    ac_color_transform *found = NULL;
    pthread_mutex_lock(&ac_cache_lock);
    ac_cache_entry *entry = ac_cache_entry_for(key, size, kind, hash);
    if (entry != NULL) {
        entry->used = ++ac_cache_clock;
        entry->uses++;
        entry->transform->references++;
        found = entry->transform;
    }
    pthread_mutex_unlock(&ac_cache_lock);
    return found;
}

static void ac_transform_free(ac_color_transform *transform) {
    if (transform->transform != NULL) cmsDeleteTransform(transform->transform);
    free(transform->shaper);
    free(transform);
}

// Keeps `transform` (just built, its one reference the caller's) in the cache, which takes a
// reference of its own, in place of the entry the policy above gives up. Another thread may have
// kept the same profile meanwhile: then this one stays the caller's alone.
static void ac_cache_keep(const uint8_t *key, size_t size, int kind, uint64_t hash, ac_color_transform *transform) {
    uint8_t *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) return;
    memcpy(copy, key, size);
    ac_cache_entry evicted = {0};
    pthread_mutex_lock(&ac_cache_lock);
    if (ac_cache_entry_for(key, size, kind, hash) == NULL) {
        int slot = -1, once = -1;
        for (int i = 0; i < AC_CACHE_SIZE; i++) {
            ac_cache_entry *entry = &ac_cache[i];
            if (entry->transform == NULL) { slot = i; break; }
            if (entry->uses == 1 && (once < 0 || entry->used < ac_cache[once].used)) once = i;
            if (slot < 0 || entry->used < ac_cache[slot].used) slot = i;
        }
        if (ac_cache[slot].transform != NULL && once >= 0) slot = once;
        evicted = ac_cache[slot];
        transform->references++;
        ac_cache[slot] = (ac_cache_entry){hash, size, kind, copy, transform, ++ac_cache_clock, 1};
        copy = NULL;
        if (evicted.transform != NULL && --evicted.transform->references > 0) evicted.transform = NULL;
    }
    pthread_mutex_unlock(&ac_cache_lock);
    free(copy);
    free(evicted.bytes);
    if (evicted.transform != NULL) ac_transform_free(evicted.transform);
}

void ac_color_cache_clear(void) {
    ac_cache_entry evicted[AC_CACHE_SIZE];
    pthread_mutex_lock(&ac_cache_lock);
    for (int i = 0; i < AC_CACHE_SIZE; i++) {
        evicted[i] = ac_cache[i];
        if (evicted[i].transform != NULL && --evicted[i].transform->references > 0) evicted[i].transform = NULL;
        ac_cache[i] = (ac_cache_entry){0};
    }
    pthread_mutex_unlock(&ac_cache_lock);
    for (int i = 0; i < AC_CACHE_SIZE; i++) {
        free(evicted[i].bytes);
        if (evicted[i].transform != NULL) ac_transform_free(evicted[i].transform);
    }
}

static ac_color_transform *ac_wrap(cmsHTRANSFORM transform, int inverted) {
    ac_color_transform *wrapped = calloc(1, sizeof *wrapped);
    if (wrapped == NULL) {
        if (transform != NULL) cmsDeleteTransform(transform);
        return NULL;
    }
    wrapped->transform = transform;
    wrapped->inverted = inverted;
    wrapped->references = 1;
    return wrapped;
}

void ac_color_release(ac_color_transform *transform) {
    if (transform == NULL) return;
    pthread_mutex_lock(&ac_cache_lock);
    int last = --transform->references == 0;
    pthread_mutex_unlock(&ac_cache_lock);
    if (last) ac_transform_free(transform);
}

// ---- the matrix-shaper kernel -----------------------------------------------------------------

static int ac_invert3(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (fabs(det) < 1e-12) return 0;
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}

// RGB → XYZ (D50) from a matrix-shaper's colorant tags: the columns are red, green, blue.
static int ac_colorant_matrix(cmsHPROFILE profile, double m[9]) {
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[c]);
        if (xyz == NULL) return 0;
        m[c] = xyz->X;
        m[3 + c] = xyz->Y;
        m[6 + c] = xyz->Z;
    }
    return 1;
}

// Linear RGB of a matrix-shaper `profile` → linear sRGB: the inverse of sRGB's colorant matrix
// times the profile's (both adapted to D50).
static int ac_linear_to_srgb(cmsHPROFILE profile, double matrix[9]) {
    pthread_once(&ac_srgb_once, ac_srgb_build);
    double source[9], srgb[9], inverse[9];
    if (!ac_colorant_matrix(profile, source)) return 0;
    for (int c = 0; c < 3; c++) {
        srgb[c] = ac_srgb_colorants[c].X;
        srgb[3 + c] = ac_srgb_colorants[c].Y;
        srgb[6 + c] = ac_srgb_colorants[c].Z;
    }
    if (!ac_invert3(srgb, inverse)) return 0;
    for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 3; col++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += inverse[row * 3 + k] * source[k * 3 + col];
            matrix[row * 3 + col] = sum;
        }
    }
    return 1;
}

int ac_nclx_linear_to_srgb(int primaries, double matrix[9], double luminance[3]) {
    cmsCIExyYTRIPLE xyY;
    cmsCIExyY white;
    if (!ac_nclx_primaries(primaries == 0 || primaries == 2 ? 1 : primaries, &xyY, &white)) return 0;
    cmsToneCurve *linear = cmsBuildGamma(NULL, 1.0);
    if (linear == NULL) return 0;
    cmsToneCurve *curves[3] = {linear, linear, linear};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &xyY, curves);
    cmsFreeToneCurve(linear);
    if (profile == NULL) return 0;
    int ok = ac_linear_to_srgb(profile, matrix);
    cmsCloseProfile(profile);
    // Luminance (D65) of a source colour is that of its sRGB image: BT.709's weights through the matrix.
    const double rec709[3] = {0.2126, 0.7152, 0.0722};
    for (int col = 0; col < 3 && ok; col++) {
        luminance[col] = rec709[0] * matrix[col] + rec709[1] * matrix[3 + col] + rec709[2] * matrix[6 + col];
    }
    return ok;
}

// The kernel's tables for `profile`, or NULL when it is not a plain RGB matrix-shaper.
static ac_matrix_shaper *ac_matrix_shaper_for(cmsHPROFILE profile) {
    pthread_once(&ac_srgb_once, ac_srgb_build);
    if (cmsGetColorSpace(profile) != cmsSigRgbData || !cmsIsMatrixShaper(profile)
        || cmsIsTag(profile, cmsSigAToB0Tag) || cmsIsTag(profile, cmsSigDToB0Tag)) return NULL;
    double matrix[9];
    if (!ac_linear_to_srgb(profile, matrix)) return NULL;
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    ac_matrix_shaper *shaper = malloc(sizeof *shaper);
    if (shaper == NULL) return NULL;
    for (int c = 0; c < 3; c++) {
        const cmsToneCurve *curve = cmsReadTag(profile, curves[c]);
        if (curve == NULL) {
            free(shaper);
            return NULL;
        }
        for (int v = 0; v < 256; v++) {
            float linear = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)(v / 255.0));
            shaper->linear[c][v] = isfinite(linear) ? linear : 0.0f;
        }
    }
    for (int i = 0; i < 9; i++) shaper->matrix[i] = isfinite(matrix[i]) && fabs(matrix[i]) < 1e6 ? (float)matrix[i] : 0.0f;
    for (int i = 0; i <= AC_OUT_STEPS; i++) {
        double linear = (double)i / AC_OUT_STEPS;
        double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
        shaper->encode[i] = (uint8_t)(encoded * 255 + 0.5);
    }
    return shaper;
}

// In blocks of 64 pixels: the table lookups are scalar, the matrix, clipping and scaling run over
// plain float arrays the compiler vectorises; locals and `restrict` keep the byte stores from
// forcing every table and coefficient to be reloaded. Built twice, for AVX2 and for any x86-64,
// chosen when the program loads (AVX2 is the faster: BENCHMARKS.md, "Colour management"; no FMA,
// so both round alike).
#define AC_BLOCK 64

#if defined(__x86_64__) && defined(__ELF__)
__attribute__((target_clones("avx2", "default")))
#endif
static void ac_matrix_shaper_apply(const ac_matrix_shaper *shaper, int channels, uint8_t *restrict pixels, size_t count) {
    const float m0 = shaper->matrix[0], m1 = shaper->matrix[1], m2 = shaper->matrix[2], m3 = shaper->matrix[3],
                m4 = shaper->matrix[4], m5 = shaper->matrix[5], m6 = shaper->matrix[6], m7 = shaper->matrix[7],
                m8 = shaper->matrix[8];
    const float *restrict lr = shaper->linear[0], *restrict lg = shaper->linear[1], *restrict lb = shaper->linear[2];
    const uint8_t *restrict encode = shaper->encode;
    float r[AC_BLOCK], g[AC_BLOCK], b[AC_BLOCK];
    int32_t out[3][AC_BLOCK];
    const size_t stride = (size_t)channels;
    for (size_t start = 0; start < count; start += AC_BLOCK) {
        size_t n = count - start < AC_BLOCK ? count - start : AC_BLOCK;
        uint8_t *restrict p = pixels + start * stride;
        for (size_t i = 0; i < n; i++) {
            r[i] = lr[p[i * stride]];
            g[i] = lg[p[i * stride + 1]];
            b[i] = lb[p[i * stride + 2]];
        }
        for (size_t i = 0; i < n; i++) {
            float x = m0 * r[i] + m1 * g[i] + m2 * b[i];
            float y = m3 * r[i] + m4 * g[i] + m5 * b[i];
            float z = m6 * r[i] + m7 * g[i] + m8 * b[i];
            // Written so that NaN (a hostile profile's curve) becomes 0, never an index.
            x = x > 0.0f ? x : 0.0f;
            y = y > 0.0f ? y : 0.0f;
            z = z > 0.0f ? z : 0.0f;
            x = x < 1.0f ? x : 1.0f;
            y = y < 1.0f ? y : 1.0f;
            z = z < 1.0f ? z : 1.0f;
            out[0][i] = (int32_t)(x * (float)AC_OUT_STEPS + 0.5f);
            out[1][i] = (int32_t)(y * (float)AC_OUT_STEPS + 0.5f);
            out[2][i] = (int32_t)(z * (float)AC_OUT_STEPS + 0.5f);
        }
        for (size_t i = 0; i < n; i++) {
            p[i * stride] = encode[out[0][i]];
            p[i * stride + 1] = encode[out[1][i]];
            p[i * stride + 2] = encode[out[2][i]];
        }
    }
}

// ---- RGB sources -----------------------------------------------------------------------------

static void ac_note(char *note, const char *text) {
    if (note != NULL) snprintf(note, 160, "%s", text);
}

static void ac_describe(cmsHPROFILE profile, char *description) {
    if (description == NULL) return;
    description[0] = '\0';
    wchar_t wide[64];
    // Sizes in bytes, the count written including the terminating zero.
    cmsUInt32Number length = cmsGetProfileInfo(profile, cmsInfoDescription, "en", "US", wide, sizeof wide) / sizeof wide[0];
    size_t out = 0;
    for (cmsUInt32Number i = 0; i < length && i < 64 && wide[i] != 0 && out < 63; i++) {
        description[out++] = (wide[i] >= 32 && wide[i] < 127) ? (char)wide[i] : '?';
    }
    description[out] = '\0';
}

// lcms2 prefers a profile's floating-point tables (D2Bx, `mpet`) to its integer ones and, to build
// a transform, runs each of its 33³ grid points through every stage of them: CPU in proportion to
// the tables' size, far past a decode's for the 8 MiB a carrier allows (BENCHMARKS.md, "Fuzzing:
// cost per KB"). Photos do not carry them: they are dropped, and lcms2 reads the A2Bx tables or
// the matrix and curves instead, as every ICC v2 reader does.
static void ac_drop_float_tables(cmsHPROFILE profile) {
    static const cmsTagSignature tables[4] = {cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag, cmsSigDToB3Tag};
    for (int i = 0; i < 4; i++) {
        if (cmsIsTag(profile, tables[i])) cmsWriteTag(profile, tables[i], NULL);  // NULL: delete the tag
    }
}

// The profile a source declares, or NULL (untagged, or unusable: `note` says why).
static cmsHPROFILE ac_source_profile(const ac_color_source *source, char *note, char *description) {
    if (source->icc != NULL && source->icc_size > 0) {
        cmsHPROFILE profile = cmsOpenProfileFromMem(source->icc, (cmsUInt32Number)source->icc_size);
        if (profile == NULL) {
            ac_note(note, "the embedded colour profile is damaged; the image was read as sRGB");
            return NULL;
        }
        ac_describe(profile, description);
        ac_drop_float_tables(profile);
        if (cmsGetColorSpace(profile) != cmsSigRgbData) {
            // A gray profile on a gray JPEG (decoded as R = G = B) is read as sRGB gray.
            if (cmsGetColorSpace(profile) != cmsSigGrayData) {
                ac_note(note, "the embedded colour profile is not an RGB profile; the image was read as sRGB");
            }
            cmsCloseProfile(profile);
            return NULL;
        }
        return profile;
    }
    if (source->nclx_primaries != 0 || source->nclx_transfer != 0) {
        int primaries = source->nclx_primaries == 2 ? 1 : source->nclx_primaries;  // 2: unspecified
        if (description != NULL) snprintf(description, 64, "nclx %d/%d", source->nclx_primaries, source->nclx_transfer);
        if ((primaries == 1 || primaries == 0) && (source->nclx_transfer == 13 || source->nclx_transfer == 2)) return NULL;
        if (source->nclx_transfer == 16 || source->nclx_transfer == 18) return NULL;  // HDR: the decoder tone-maps
        cmsCIExyYTRIPLE xyY;
        cmsCIExyY white;
        cmsToneCurve *curve = ac_nclx_curve(source->nclx_transfer);
        if (!ac_nclx_primaries(primaries == 0 ? 1 : primaries, &xyY, &white) || curve == NULL) {
            if (curve != NULL) cmsFreeToneCurve(curve);
            ac_note(note, "the image's colour description (nclx) names primaries or a transfer we do not know; read as sRGB");
            return NULL;
        }
        cmsToneCurve *curves[3] = {curve, curve, curve};
        cmsHPROFILE profile = cmsCreateRGBProfile(&white, &xyY, curves);
        cmsFreeToneCurve(curve);
        return profile;
    }
    return NULL;
}

static _Thread_local size_t ac_last_profile_cost[2];

void ac_color_last_profile_cost(size_t *given, size_t *refused) {
    if (given != NULL) *given = ac_last_profile_cost[0];
    if (refused != NULL) *refused = ac_last_profile_cost[1];
}

static ac_color_transform *ac_color_prepare_budgeted(const ac_color_source *source, int channels, char *note,
                                                     char *description);

// The profile is the image's, so whatever lcms2 allocates for it is budgeted (color_budget.c).
ac_color_transform *ac_color_prepare(const ac_color_source *source, int channels, char *note, char *description) {
    ac_lcms_budget_begin(source->icc != NULL ? source->icc_size : 0);
    ac_color_transform *transform = ac_color_prepare_budgeted(source, channels, note, description);
    ac_last_profile_cost[0] = ac_lcms_budget_end(&ac_last_profile_cost[1]);
    return transform;
}

static ac_color_transform *ac_color_prepare_budgeted(const ac_color_source *source, int channels, char *note,
                                                     char *description) {
    if (note != NULL) note[0] = '\0';
    if (description != NULL) description[0] = '\0';
    if (source->broken) {
        ac_note(note, source->reason[0] != '\0' ? source->reason : "the embedded colour profile is damaged; the image was read as sRGB");
        return NULL;
    }
    if (channels != 3 && channels != 4) return NULL;
    // The cache key: the profile's bytes, or the nclx codes.
    uint8_t nclx_key[8];
    const uint8_t *key = source->icc;
    size_t key_size = source->icc_size;
    if (key == NULL || key_size == 0) {
        memcpy(nclx_key, &source->nclx_primaries, 4);
        memcpy(nclx_key + 4, &source->nclx_transfer, 4);
        key = nclx_key;
        key_size = sizeof nclx_key;
    }
    uint64_t hash = ac_fnv1a(key, key_size);
    cmsHPROFILE profile = ac_source_profile(source, note, description);
    if (profile == NULL) return NULL;
    ac_color_transform *found = ac_cache_find(key, key_size, channels, hash);
    if (found != NULL) {
        cmsCloseProfile(profile);
        return found;
    }
    if (ac_profile_is_srgb(profile)) {
        cmsCloseProfile(profile);
        return NULL;
    }
    ac_matrix_shaper *shaper = ac_matrix_shaper_for(profile);
    if (shaper != NULL) {
        cmsCloseProfile(profile);
        ac_color_transform *wrapped = calloc(1, sizeof *wrapped);
        if (wrapped == NULL) {
            free(shaper);
            return NULL;
        }
        wrapped->shaper = shaper;
        wrapped->channels = channels;
        wrapped->references = 1;
        ac_cache_keep(key, key_size, channels, hash, wrapped);
        return wrapped;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsUInt32Number format = channels == 4 ? TYPE_RGBA_8 : TYPE_RGB_8;
    // NOCACHE: one transform is shared by every thread transforming rows of an image.
    cmsHTRANSFORM transform = srgb == NULL ? NULL
        : cmsCreateTransform(profile, format, srgb, format, INTENT_PERCEPTUAL,
                             cmsFLAGS_NOCACHE | (channels == 4 ? cmsFLAGS_COPY_ALPHA : 0));
    cmsCloseProfile(profile);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (transform == NULL) {
        ac_note(note, "the embedded colour profile cannot be used as a source; the image was read as sRGB");
        return NULL;
    }
    ac_color_transform *wrapped = ac_wrap(transform, 0);
    if (wrapped != NULL) ac_cache_keep(key, key_size, channels, hash, wrapped);
    return wrapped;
}

void ac_color_apply(const ac_color_transform *transform, uint8_t *pixels, int width, int rows) {
    if (transform == NULL || width <= 0 || rows <= 0) return;
    if (transform->shaper != NULL) {
        ac_matrix_shaper_apply(transform->shaper, transform->channels, pixels, (size_t)width * (size_t)rows);
        return;
    }
    if (transform->transform == NULL) return;
    cmsUInt32Number format = cmsGetTransformInputFormat(transform->transform);
    size_t stride = (size_t)width * T_BYTES(format) * (T_CHANNELS(format) + T_EXTRA(format));
    cmsDoTransformLineStride(transform->transform, pixels, pixels, (cmsUInt32Number)width, (cmsUInt32Number)rows,
                             (cmsUInt32Number)stride, (cmsUInt32Number)stride, 0, 0);
}

// ---- CMYK ------------------------------------------------------------------------------------

// `icc` is the image's or the installed standard one: budgeted either way (color_budget.c).
static cmsHTRANSFORM ac_cmyk_transform(const uint8_t *icc, size_t size, int inverted) {
    if (icc == NULL || size < 132) return NULL;
    ac_lcms_budget_begin(size);
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    if (profile == NULL) {
        ac_lcms_budget_end(NULL);
        return NULL;
    }
    cmsHTRANSFORM transform = NULL;
    ac_drop_float_tables(profile);
    if (cmsGetColorSpace(profile) == cmsSigCmykData) {
        cmsHPROFILE srgb = cmsCreate_sRGBProfile();
        if (srgb != NULL) {
            transform = cmsCreateTransform(profile, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, srgb, TYPE_RGB_8,
                                           INTENT_PERCEPTUAL, cmsFLAGS_NOCACHE);
            cmsCloseProfile(srgb);
        }
    }
    cmsCloseProfile(profile);
    ac_lcms_budget_end(NULL);
    return transform;
}

ac_color_transform *ac_color_prepare_cmyk(const uint8_t *icc, size_t icc_size, const uint8_t *fallback,
                                          size_t fallback_size, int inverted, char *note) {
    if (note != NULL) note[0] = '\0';
    int kind = 10 + (inverted ? 1 : 0);
    int tagged = icc != NULL && icc_size > 0;
    const uint8_t *key = tagged ? icc : fallback;
    size_t key_size = tagged ? icc_size : fallback_size;
    uint64_t hash = key != NULL ? ac_fnv1a(key, key_size) : 0;
    if (key != NULL) {
        ac_color_transform *found = ac_cache_find(key, key_size, kind, hash);
        if (found != NULL) return found;
    }
    cmsHTRANSFORM transform = tagged ? ac_cmyk_transform(icc, icc_size, inverted) : NULL;
    if (tagged && transform == NULL) {
        ac_note(note, "the embedded CMYK profile is damaged or not a CMYK profile; converted with the standard CMYK profile");
        key = fallback;
        key_size = fallback_size;
        hash = key != NULL ? ac_fnv1a(key, key_size) : 0;
        if (key != NULL) {
            ac_color_transform *found = ac_cache_find(key, key_size, kind, hash);
            if (found != NULL) return found;
        }
    }
    if (transform == NULL) transform = ac_cmyk_transform(fallback, fallback_size, inverted);
    if (transform == NULL) {
        ac_note(note, "no usable CMYK profile (none embedded, no standard one installed): converted arithmetically, colours approximate");
        return ac_wrap(NULL, inverted);
    }
    ac_color_transform *wrapped = ac_wrap(transform, inverted);
    if (wrapped != NULL && key != NULL) ac_cache_keep(key, key_size, kind, hash, wrapped);
    return wrapped;
}

void ac_color_apply_cmyk(const ac_color_transform *transform, const uint8_t *cmyk, uint8_t *rgb, int width, int rows) {
    if (transform == NULL || width <= 0 || rows <= 0) return;
    if (transform->transform != NULL) {
        cmsDoTransformLineStride(transform->transform, cmyk, rgb, (cmsUInt32Number)width, (cmsUInt32Number)rows,
                                 (cmsUInt32Number)width * 4, (cmsUInt32Number)width * 3, 0, 0);
        return;
    }
    // No profile anywhere: R = (1 − C)(1 − K), and so on.
    size_t count = (size_t)width * (size_t)rows;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = cmyk + i * 4;
        unsigned c = p[0], m = p[1], y = p[2], k = p[3];
        if (transform->inverted) {  // Adobe: 255 = no ink
            rgb[i * 3 + 0] = (uint8_t)((c * k + 127) / 255);
            rgb[i * 3 + 1] = (uint8_t)((m * k + 127) / 255);
            rgb[i * 3 + 2] = (uint8_t)((y * k + 127) / 255);
        } else {
            rgb[i * 3 + 0] = (uint8_t)(((255 - c) * (255 - k) + 127) / 255);
            rgb[i * 3 + 1] = (uint8_t)(((255 - m) * (255 - k) + 127) / 255);
            rgb[i * 3 + 2] = (uint8_t)(((255 - y) * (255 - k) + 127) / 255);
        }
    }
}
