// The matrix-shaper kernel: our own transform to sRGB for RGB matrix-shaper profiles (tables
// built from the profile's curves and colorants, then applied in blocks of pixels), and the
// nclx primaries → linear sRGB matrix the HDR tone map uses (heif_hdr.c). Shared: color_internal.h.
#include <math.h>
#include <stdlib.h>
#include <lcms2.h>

#include "color_internal.h"
#include "heif_hdr.h"

// A matrix-shaper source (an RGB profile made of three curves and a matrix, with no LUT for the
// perceptual intent: Display P3, Adobe RGB, every nclx description) is transformed by our own
// kernel: the source curves as 256-entry tables to linear light, one 3 × 3 matrix to linear sRGB
// (the two profiles' colorants, both adapted to D50), clipping, and sRGB's curve as a 16384-entry
// table. lcms2 computes the same thing (perceptual falls back to colorimetric for matrix-shapers)
// more slowly (BENCHMARKS.md, "Colour management"); every other profile goes through lcms2's
// transform.
#define AC_OUT_STEPS 16384

struct ac_matrix_shaper {
    float linear[3][256];
    float matrix[9];
    uint8_t encode[AC_OUT_STEPS + 1];
};

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
    const cmsCIEXYZ *colorants = ac_srgb_colorants_d50();
    double source[9], srgb[9], inverse[9];
    if (!ac_colorant_matrix(profile, source)) return 0;
    for (int c = 0; c < 3; c++) {
        srgb[c] = colorants[c].X;
        srgb[3 + c] = colorants[c].Y;
        srgb[6 + c] = colorants[c].Z;
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
ac_matrix_shaper *ac_matrix_shaper_for(cmsHPROFILE profile) {
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
void ac_matrix_shaper_apply(const ac_matrix_shaper *shaper, int channels, uint8_t *restrict pixels, size_t count) {
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
