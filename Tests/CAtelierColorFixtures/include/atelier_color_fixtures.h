// Test fixtures and references for colour management, written with the libraries themselves
// (lcms2, libheif, libjpeg) rather than with Atelier's code: tagged and CMYK files to decode, and
// lcms2's reference transform (double precision, unoptimised) to compare Atelier's 8-bit results with.
#ifndef ATELIER_COLOR_FIXTURES_H
#define ATELIER_COLOR_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

// An RGB ICC profile (malloc'd; free with acf_free): `primaries` 12 = Display P3 (D65), 9 =
// BT.2020, 1 = sRGB primaries; the sRGB curve; described as `description`.
uint8_t *acf_rgb_profile(int primaries, const char *description, size_t *size);
// The same profile (v4) with floating-point tables as well: a D2B0 tag (`mpet`) of `pairs` ×
// (three segmented curves, a matrix that swaps the first and last channels), which lcms2 prefers
// to the matrix and curves when it builds a transform.
uint8_t *acf_rgb_profile_with_float_tables(int primaries, const char *description, int pairs, size_t *size);

// lcms2's reference: `count` pixels of 8-bit input through `icc` (RGB, or CMYK when `cmyk`, values
// as ink 0…255 = none…full) to sRGB with perceptual intent in double precision, clipped to 0…1,
// then to CIELab (D50) in `lab` (3 doubles a pixel). 0 when the profile cannot be used.
int acf_reference_lab(const uint8_t *icc, size_t size, int cmyk, const uint8_t *pixels, int count, double *lab);
// lcms2's own optimised 8-bit transform (perceptual) of `count` RGB pixels through `icc` to sRGB,
// in place. 0 when the profile cannot be used.
int acf_lcms_8bit(const uint8_t *icc, size_t size, uint8_t *pixels, int count);
// 8-bit sRGB → CIELab (D50), as lcms2 computes it.
void acf_srgb_lab(const uint8_t *rgb, int count, double *lab);

// HEIC through libheif and x265: `pixels` RGB, 16 bits a sample holding `bit_depth`-bit values
// (8, 10 or 12); tagged with nclx (`primaries`/`transfer` non-zero) and/or an ICC profile; `orientation`
// 1…8 (EXIF numbering) written as irot/imir.
int acf_heif_encode(const uint16_t *pixels, int width, int height, int bit_depth, int primaries, int transfer, int orientation,
                    const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size);

// CMYK JPEG through libjpeg (with Adobe's APP14, as Photoshop writes it: values stored inverted,
// so pass 255 − ink), YCCK when `ycck`; an ICC profile in APP2 when `icc` is not NULL.
int acf_jpeg_encode_cmyk(const uint8_t *cmyk, int width, int height, int ycck, const uint8_t *icc, size_t icc_size,
                         uint8_t **out, size_t *out_size);

void acf_free(void *pointer);

#endif
