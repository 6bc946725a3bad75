// atelier_color — colour management with lcms2: what colour space a file declares, and the
// transform of decoded pixels to sRGB.
//
// The carriers (`ac_*_color`) read only the bytes that declare colour: a JPEG's APP2
// "ICC_PROFILE" chunks (reassembled in sequence order), a PNG's iCCP (inflated) or sRGB chunk, a
// WebP's ICCP chunk, a HEIF primary image's `colr` box (an ICC profile, or nclx primaries and
// transfer). They never fail the image: a carrier that is present but broken sets `broken` and a
// reason, and the picture is read as sRGB.
//
// `ac_color_prepare` turns a source into a transform to sRGB (perceptual intent; lcms2's optimised
// 8-bit path; cached by profile, eight per process, keeping the profiles in use (color_cache.c), so the
// same iPhone profile is built once per process), or NULL
// when nothing needs doing (untagged, or a profile that is sRGB in all but its bytes) or the
// profile cannot be used (then `note` says why). `ac_color_apply` transforms rows in place and may
// run on several threads at once over disjoint rows of the same transform.
#ifndef ATELIER_COLOR_H
#define ATELIER_COLOR_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *icc;         // the ICC profile's bytes (malloc'd; ac_color_source_free), or NULL
    size_t icc_size;
    int srgb_chunk;       // PNG: an sRGB chunk (the file says it is sRGB)
    int nclx_primaries;   // HEIF nclx (ITU-T H.273): colour primaries, 0 when absent
    int nclx_transfer;    // transfer characteristics
    int broken;           // a carrier was there but could not be read whole: `reason` says which
    char reason[160];
} ac_color_source;

void ac_color_source_free(ac_color_source *source);

// Fill `source` (zeroed first). Always AC_OK: a damaged carrier is `broken`, not an error.
int ac_jpeg_color(const uint8_t *data, size_t size, ac_color_source *source);
int ac_png_color(const uint8_t *data, size_t size, ac_color_source *source);
int ac_webp_color(const uint8_t *data, size_t size, ac_color_source *source);
int ac_heif_color(const uint8_t *data, size_t size, ac_color_source *source);

typedef struct ac_color_transform ac_color_transform;

// A transform of `channels`-channel 8-bit pixels (3 RGB, 4 RGBA with alpha kept) from `source` to
// sRGB; NULL when there is nothing to do or the profile cannot be used — `note` (≥ 160 bytes)
// is then empty, or says why the profile was ignored (for the job's log, not for clients).
// `description` (≥ 64 bytes, may be NULL) receives the profile's name ("Display P3", "nclx 12/13").
ac_color_transform *ac_color_prepare(const ac_color_source *source, int channels, char *note, char *description);
// Transforms `rows` rows of `width` pixels starting at `pixels` (rows packed), in place.
void ac_color_apply(const ac_color_transform *transform, uint8_t *pixels, int width, int rows);
void ac_color_release(ac_color_transform *transform);

// CMYK (4 bytes a pixel, as libjpeg gives them; `inverted` for Adobe's) → sRGB RGB8 through the
// profile `icc` (NULL or unusable: `fallback`, a standard CMYK profile; both unusable: an
// arithmetic conversion with no profile). `note` as above.
ac_color_transform *ac_color_prepare_cmyk(const uint8_t *icc, size_t icc_size, const uint8_t *fallback,
                                          size_t fallback_size, int inverted, char *note);
// `rows` rows of CMYK at `cmyk` → RGB at `rgb` (both packed).
void ac_color_apply_cmyk(const ac_color_transform *transform, const uint8_t *cmyk, uint8_t *rgb, int width, int rows);

// The sRGB profile the encoders embed (lcms2's, with parametric curves; ~600 bytes). Static.
const uint8_t *ac_srgb_icc(size_t *size);

// Whether `icc` is a usable profile that is sRGB in all but its bytes (same colorants, white
// point and curves within a rounding step).
int ac_icc_is_srgb(const uint8_t *icc, size_t size);

// Empties the transform cache (transforms in use stay their users' until released). For
// ./ops/fuzz's cost check, which times every input as if its profile were new.
void ac_color_cache_clear(void);

// What lcms2 was given (bytes) for the last ac_color_prepare on this thread, and what it asked for
// past the profile's memory budget (refused; the tag it was for read as damaged).
void ac_color_last_profile_cost(size_t *given, size_t *refused);

#endif
