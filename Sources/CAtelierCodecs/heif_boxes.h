// heif_boxes — reading a HEIF file's boxes for heif_structure.c: box headers and children, the
// item locations ('iloc') and an item's extents, an item's data read across them, the picture
// size an HEVC sequence parameter set declares. Private to the codec layer (heif_boxes.c).
#ifndef ATELIER_HEIF_BOXES_H
#define ATELIER_HEIF_BOXES_H

#include <stddef.h>
#include <stdint.h>

#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

enum {
    BOX_META = FOURCC('m', 'e', 't', 'a'), BOX_IREF = FOURCC('i', 'r', 'e', 'f'),
    BOX_ILOC = FOURCC('i', 'l', 'o', 'c'), BOX_IDAT = FOURCC('i', 'd', 'a', 't'),
    BOX_IPRP = FOURCC('i', 'p', 'r', 'p'), BOX_IPCO = FOURCC('i', 'p', 'c', 'o'),
    BOX_IPMA = FOURCC('i', 'p', 'm', 'a'), BOX_HVCC = FOURCC('h', 'v', 'c', 'C'),
    BOX_ISPE = FOURCC('i', 's', 'p', 'e'), BOX_AV1C = FOURCC('a', 'v', '1', 'C'),
    BOX_IINF = FOURCC('i', 'i', 'n', 'f'), BOX_INFE = FOURCC('i', 'n', 'f', 'e'),
    REF_DIMG = FOURCC('d', 'i', 'm', 'g'), REF_AUXL = FOURCC('a', 'u', 'x', 'l'),
    ITEM_GRID = FOURCC('g', 'r', 'i', 'd'), ITEM_IOVL = FOURCC('i', 'o', 'v', 'l'),
};

#define MAX_EXTENTS 32  // per item: libheif 1.15's own limit (it refuses the file past it)
#define HEVC_SPS 33
#define SPS_READ_BYTES 1024  // an SPS as far as its colour description: scaling lists can take a few hundred

typedef struct { size_t start, end; } span;  // [start, end) in the file

// A big-endian number of `bytes` bytes.
static inline uint64_t be(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

// The extent of the box at `at` (header included); 0 when it does not fit before `end`.
size_t ac_box_at(const uint8_t *data, size_t at, size_t end, uint32_t *type, size_t *header);
// The content of the first box of `type` among the children in `within` ({0, 0} if none).
// `full` skips a FullBox's version and flags (the version is kept in `version`).
span ac_box_child(const uint8_t *data, span within, uint32_t wanted, int full, int *version);

// What an HEVC sequence parameter set declares, as far as these checks read it.
typedef struct {
    uint64_t width, height;   // the coded picture size
    int has_size;             // read as far as the size
    int has_colour;           // its VUI describes its colours:
    int primaries, transfer, matrix;  // … colour_primaries, transfer_characteristics, matrix_coeffs
} ac_sps;

// Reads an SPS NAL unit (2-byte header included) as far as its VUI's colour description; 0 when
// it cannot be read that far (`has_size` says whether the size was).
int ac_sps_read(const uint8_t *nal, size_t length, ac_sps *sps);

typedef struct {
    uint32_t item;
    int method;             // construction method: 0 file offsets, 1 'idat' offsets
    int offset_size, length_size, index_size;
    uint64_t base;
    size_t extents;         // offset of the extent list in the file
    uint32_t extent_count;
} location;

typedef struct {
    location *items;
    size_t count;
    int offset_size, length_size, index_size, version;
} locations;

// Orders locations by item (for qsort and bsearch).
int ac_compare_locations(const void *a, const void *b);
// Reads 'iloc', sorted by item; 0 when it does not parse (libheif refuses such a file before decoding).
int ac_read_locations(const uint8_t *data, span iloc, int version, locations *out);

// What ac_item_spans found (heif_boxes.c says when each).
enum { SPANS_OK, SPANS_OUTSIDE, SPANS_REPEAT };
// The spans of an item's data, in order (at most MAX_EXTENTS), in `spans`.
int ac_item_spans(const uint8_t *data, size_t size, span idat, const location *entry, span *spans, size_t *count);

// Reads an item's data front to back across its spans: each byte is visited at most once per
// walk, however the data is split.
typedef struct {
    const uint8_t *data;
    const span *spans;
    size_t count, index, offset;  // the current span, and the position in it
} item_reader;

// Copies up to `wanted` bytes from the reader's position without moving it; returns how many.
size_t ac_item_peek(const item_reader *reader, uint8_t *out, size_t wanted);
// Moves the position on by `length` bytes (or to the end); returns how many it moved.
uint64_t ac_item_skip(item_reader *reader, uint64_t length);

#endif
