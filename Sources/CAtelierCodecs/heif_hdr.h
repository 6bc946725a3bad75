// HDR HEIC (BT.2100 PQ or HLG transfer, 10 or 12 bits) → 8-bit sRGB: a tone map, the gamut to
// sRGB primaries, the sRGB curve.
#ifndef ATELIER_HEIF_HDR_H
#define ATELIER_HEIF_HDR_H

#include <stddef.h>
#include <stdint.h>

// `plane`: interleaved little-endian 16-bit samples holding `bits`-bit values (RRGGBB or
// RRGGBBAA), `stride` bytes a row; `target`: width × height × channels bytes. `transfer` is the
// H.273 code (16 PQ, 18 HLG), `primaries` the H.273 primaries (9 BT.2020, 12 Display P3, 1 sRGB).
void ac_hdr_to_srgb(const uint8_t *plane, size_t stride, int width, int height, int channels, int bits,
                    int transfer, int primaries, uint8_t *target);

// Provided by color_shaper.c: linear light in the H.273 `primaries` → linear sRGB (`matrix`, row-major)
// and those primaries' luminance weights; 0 for primaries it does not know.
int ac_nclx_linear_to_srgb(int primaries, double matrix[9], double luminance[3]);

#endif
