// The HDR tone map. Linear light is measured in units of SDR reference white (203 cd/m²,
// ITU-R BT.2408): below 0.8 of it nothing changes; above, highlights roll off smoothly (an
// exponential shoulder with slope 1 at the knee) towards 1.0. The curve acts on luminance and
// scales the three channels alike, so hues stay; the gamut is then mapped to sRGB primaries by a
// matrix and clipped. HLG is read through its inverse OETF and the BT.2100 system gamma (1.2,
// a 1000 cd/m² display) per channel — an approximation of the luminance-based OOTF.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heif_hdr.h"

#define AC_REFERENCE_WHITE 203.0
#define AC_KNEE 0.8

static double ac_pq_eotf(double signal) {  // → cd/m²
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
                 c3 = 2392.0 / 4096 * 32;
    double p = pow(signal, 1 / m2);
    double numerator = p - c1 > 0 ? p - c1 : 0;
    return 10000.0 * pow(numerator / (c2 - c3 * p), 1 / m1);
}

static double ac_hlg_eotf(double signal) {  // → cd/m², per channel
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    double scene = signal <= 0.5 ? signal * signal / 3 : (exp((signal - c) / a) + b) / 12;
    return 1000.0 * pow(scene, 1.2);
}

static double ac_shoulder(double y) {
    if (y <= AC_KNEE) return y;
    return AC_KNEE + (1 - AC_KNEE) * (1 - exp(-(y - AC_KNEE) / (1 - AC_KNEE)));
}

static uint8_t ac_srgb_encode(double linear) {
    if (!(linear > 0)) return 0;
    if (linear >= 1) return 255;
    double v = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
    return (uint8_t)(v * 255 + 0.5);
}

void ac_hdr_to_srgb(const uint8_t *plane, size_t stride, int width, int height, int channels, int bits,
                    int transfer, int primaries, uint8_t *target) {
    // Source primaries → sRGB primaries in linear light, and the source's luminance weights
    // (color_shaper.c, from the same primaries table as every nclx profile); unknown primaries: sRGB's.
    double matrix[9], weights[3];
    if (!ac_nclx_linear_to_srgb(primaries, matrix, weights) && !ac_nclx_linear_to_srgb(1, matrix, weights)) {
        const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, rec709[3] = {0.2126, 0.7152, 0.0722};
        memcpy(matrix, identity, sizeof matrix);
        memcpy(weights, rec709, sizeof weights);
    }
    int levels = 1 << bits;
    double *linear = malloc(sizeof(double) * (size_t)levels);   // code value → units of reference white
    uint8_t *encode = malloc(4097);                             // linear 0…1 in 4096 steps → sRGB
    if (linear == NULL || encode == NULL) {
        free(linear);
        free(encode);
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width * channels; x++) target[(size_t)y * (size_t)width * (size_t)channels + (size_t)x] = 0;
        return;
    }
    for (int v = 0; v < levels; v++) {
        double signal = (double)v / (levels - 1);
        linear[v] = (transfer == 16 ? ac_pq_eotf(signal) : ac_hlg_eotf(signal)) / AC_REFERENCE_WHITE;
    }
    for (int i = 0; i <= 4096; i++) encode[i] = ac_srgb_encode(i / 4096.0);
    int mask = levels - 1;
    for (int y = 0; y < height; y++) {
        const uint8_t *row = plane + stride * (size_t)y;
        uint8_t *out = target + (size_t)y * (size_t)width * (size_t)channels;
        for (int x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)x * (size_t)channels * 2;
            double rgb[3];
            for (int c = 0; c < 3; c++) rgb[c] = linear[(p[c * 2] | (p[c * 2 + 1] << 8)) & mask];
            double luminance = weights[0] * rgb[0] + weights[1] * rgb[1] + weights[2] * rgb[2];
            double scale = luminance > 1e-9 ? ac_shoulder(luminance) / luminance : 1;
            for (int c = 0; c < 3; c++) {
                double v = scale * (matrix[c * 3] * rgb[0] + matrix[c * 3 + 1] * rgb[1] + matrix[c * 3 + 2] * rgb[2]);
                v = v < 0 ? 0 : v > 1 ? 1 : v;
                out[x * channels + c] = encode[(int)(v * 4096 + 0.5)];
            }
            if (channels == 4) {
                int alpha = (p[6] | (p[7] << 8)) & mask;
                out[x * 4 + 3] = (uint8_t)((alpha * 255 + mask / 2) / mask);
            }
        }
    }
    free(linear);
    free(encode);
}
