// heif_structure — a HEIF file's boxes read before libheif reads them, to refuse what libheif 1.15
// would decode without any limit. Private to the codec layer (heif.c).
#ifndef ATELIER_HEIF_STRUCTURE_H
#define ATELIER_HEIF_STRUCTURE_H

#include <stddef.h>
#include <stdint.h>

#include "atelier_codecs.h"

// AC_OK, or the refusal (code and message set in `result`) of a file whose structure libheif
// would follow into unbounded work:
// - item references ('dimg', 'auxl') that loop: libheif 1.15 decodes them recursively, a
//   thread per level, until memory runs out (AC_CORRUPT);
// - a coded image without an 'ispe' size, or whose HEVC sequence parameter sets (in its 'hvcC'
//   or in its own data) declare a picture larger than its 'ispe': libde265 allocates for the
//   size in the bitstream, which no libheif limit checks (AC_CORRUPT); or whose SPS cannot be
//   read as far as its colour description, or describes colours libheif does not know: its
//   libde265 plugin then fails the decode and leaks the picture it made (AC_CORRUPT);
// - a coded image whose 'ispe' is over `max_pixels` (AC_TOO_LARGE);
// - an AV1-coded image: libheif would hand it to another decoder these checks do not cover
//   (AC_UNSUPPORTED).
int ac_heif_check_structure(const uint8_t *data, size_t size, uint64_t max_pixels, ac_result *result);

#endif
