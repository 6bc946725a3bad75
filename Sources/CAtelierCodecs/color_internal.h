// color_internal — what the colour files share; private to the codec layer. The transform
// (struct ac_color_transform) is made in color_profiles.c and color_cmyk.c, kept and freed by
// color_cache.c, and run by color_shaper.c's kernel or by lcms2.
//
//   color_profiles.c  ICC profiles and nclx: the sRGB target, sRGB look-alikes, a source's profile,
//                     ac_color_prepare / ac_color_apply for RGB sources
//   color_cache.c     the transform cache (eight per process) and the transforms' references
//   color_shaper.c    the matrix-shaper kernel (our own transform for RGB matrix-shaper profiles)
//   color_cmyk.c      CMYK → sRGB (a profile, the standard one, or arithmetic)
#ifndef ATELIER_COLOR_INTERNAL_H
#define ATELIER_COLOR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <lcms2.h>

#include "atelier_color.h"

typedef struct ac_matrix_shaper ac_matrix_shaper;  // the kernel's tables (color_shaper.c)

struct ac_color_transform {
    cmsHTRANSFORM transform;  // NULL for the arithmetic CMYK conversion and the matrix-shaper kernel
    ac_matrix_shaper *shaper; // the matrix-shaper kernel's tables, or NULL
    int channels;             // of the pixels the kernel transforms
    int references;           // its users and the cache (under the cache's lock): freed at 0
    int inverted;             // arithmetic CMYK: Adobe's inverted values
};

// ---- color_profiles.c

// lcms2's sRGB colorants (red, green, blue; adapted to D50), built once.
const cmsCIEXYZ *ac_srgb_colorants_d50(void);
// Primaries (x, y of red, green, blue) and white point of an H.273 primaries code; 0 when the
// code is not one we know.
int ac_nclx_primaries(int code, cmsCIExyYTRIPLE *primaries, cmsCIExyY *white);
// Deletes a profile's floating-point tables (D2Bx), which lcms2 would be slow to build from.
void ac_drop_float_tables(cmsHPROFILE profile);
// Writes `text` into `note` (160 bytes), if there is one.
void ac_note(char *note, const char *text);

// ---- color_cache.c

uint64_t ac_fnv1a(const uint8_t *bytes, size_t size);
// The cached transform for the key (its bytes, the kind: channels, or 10 + inverted for CMYK),
// with a reference for the caller (ac_color_release), or NULL.
ac_color_transform *ac_cache_find(const uint8_t *key, size_t size, int kind, uint64_t hash);
// Keeps `transform` (just built, its one reference the caller's) in the cache.
void ac_cache_keep(const uint8_t *key, size_t size, int kind, uint64_t hash, ac_color_transform *transform);
// `transform` (NULL: the arithmetic CMYK conversion) as an ac_color_transform with one reference;
// NULL (and `transform` deleted) when out of memory.
ac_color_transform *ac_wrap(cmsHTRANSFORM transform, int inverted);

// ---- color_shaper.c

// The kernel's tables for `profile`, or NULL when it is not a plain RGB matrix-shaper.
ac_matrix_shaper *ac_matrix_shaper_for(cmsHPROFILE profile);
// Transforms `count` pixels of `channels` bytes (RGB first) in place.
void ac_matrix_shaper_apply(const ac_matrix_shaper *shaper, int channels, uint8_t *restrict pixels, size_t count);

#endif
