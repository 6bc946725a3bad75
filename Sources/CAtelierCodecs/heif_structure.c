// The checks of heif_structure.h: item references that loop, coded images against their 'ispe'
// (their HEVC parameter sets, in 'hvcC' and in their data), derived images' canvases, and a
// budget on what the checks read. The boxes are read by heif_boxes.c.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heif_boxes.h"
#include "heif_structure.h"

#define MAX_REFERENCE_EDGES 4096

static int refuse(ac_result *result, int code, const char *message) {
    result->code = code;
    snprintf(result->message, sizeof result->message, "%s", message);
    return code;
}

// MARK: item references that loop

typedef struct { uint32_t from, to; } edge;

static int compare_edges(const void *a, const void *b) {
    const edge *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from ? 1 : (x->to < y->to ? -1 : x->to > y->to);
}

// 1 when the references hold a cycle. Edges point from an image to what decoding it needs: a
// derived image to its 'dimg' inputs, a master to the auxiliary (alpha, depth) images whose
// 'auxl' names it. Each reference box's own size is ignored, as libheif ignores it.
static int has_reference_loop(const uint8_t *data, span iref, int version) {
    edge *edges = malloc(sizeof *edges * MAX_REFERENCE_EDGES);
    if (edges == NULL) return 0;
    size_t count = 0, id_bytes = version == 0 ? 2 : 4, at = iref.start;
    while (count < MAX_REFERENCE_EDGES) {
        // size (4, or 4 + 8), type (4), from, number of references (2), the references
        if (iref.end - at < 8) break;
        size_t box_header = be(data + at, 4) == 1 ? 16 : 8;
        if (iref.end - at < box_header + id_bytes + 2) break;
        uint32_t type = (uint32_t)be(data + at + 4, 4);
        at += box_header;
        uint32_t from = (uint32_t)be(data + at, (int)id_bytes);
        size_t references = (size_t)be(data + at + id_bytes, 2);
        at += id_bytes + 2;
        for (size_t r = 0; r < references && count < MAX_REFERENCE_EDGES; r++) {
            if (iref.end - at < id_bytes) { at = iref.end; break; }
            uint32_t to = (uint32_t)be(data + at, (int)id_bytes);
            at += id_bytes;
            if (type == REF_DIMG) edges[count++] = (edge){from, to};
            else if (type == REF_AUXL) edges[count++] = (edge){to, from};
        }
    }
    // Depth-first search over the items, with an explicit stack: an edge to an item still on
    // the stack is a loop. Sorted by their start, an item's edges are one run, and the item is
    // named by the index of its run's first edge; each item is entered once and each edge
    // followed once, so the search is linear in the edges whatever their shape.
    qsort(edges, count, sizeof *edges, compare_edges);
    unsigned char *state = calloc(count > 0 ? count : 1, 1);  // per run start: 0 new, 1 on the path, 2 done
    size_t *item = malloc(sizeof *item * (count > 0 ? count : 1));    // per level: the item's run start
    size_t *cursor = malloc(sizeof *cursor * (count > 0 ? count : 1));  // per level: its next edge
    int loop = 0;
    if (state == NULL || item == NULL || cursor == NULL) count = 0;
    for (size_t start = 0; start < count && !loop; start++) {
        if (state[start] != 0 || (start > 0 && edges[start].from == edges[start - 1].from)) continue;
        size_t depth = 0;
        item[depth] = start;
        cursor[depth++] = start;
        state[start] = 1;
        while (depth > 0 && !loop) {
            size_t level = depth - 1, e = cursor[level];
            if (e >= count || edges[e].from != edges[item[level]].from) {
                state[item[level]] = 2;  // every edge of this item followed
                depth--;
                continue;
            }
            cursor[level] = e + 1;
            // the run of the edge's target, if it has edges of its own
            edge key = {edges[e].to, 0};
            size_t low = 0, high = count;
            while (low < high) {
                size_t mid = (low + high) / 2;
                if (compare_edges(&edges[mid], &key) < 0) low = mid + 1; else high = mid;
            }
            if (low >= count || edges[low].from != key.from || state[low] == 2) continue;
            if (state[low] == 1) { loop = 1; break; }
            state[low] = 1;
            item[depth] = low;
            cursor[depth++] = low;
        }
    }
    free(cursor);
    free(item);
    free(state);
    free(edges);
    return loop;
}

// MARK: HEVC sequence parameter sets

// Whether a width × height fits within 'ispe' either way round: libheif 1.15 writes the size
// after its own rotation ('irot') into 'ispe', where the standard has the coded size, so files
// exist with both (the bound on memory is the same).
static int fits_either_way(uint64_t width, uint64_t height, uint64_t ispe_width, uint64_t ispe_height) {
    return (width <= ispe_width && height <= ispe_height) || (width <= ispe_height && height <= ispe_width);
}

// What the checks make of one SPS.
enum { SPS_OK, SPS_TOO_LARGE, SPS_UNREADABLE, SPS_UNKNOWN_COLOURS };

// The colour descriptions libheif 1.15 knows (its nclx tables: ITU-T H.273). Handed one it does
// not, the libde265 plugin fails the decode and leaks the picture it made (12 KB per file,
// found by ./ops/fuzz): such a stream is refused before it is decoded.
static int known_colours(const ac_sps *sps) {
    int p = sps->primaries, t = sps->transfer, m = sps->matrix;
    int primaries = p == 1 || p == 2 || (p >= 4 && p <= 12) || p == 22;
    int transfer = t == 1 || t == 2 || (t >= 4 && t <= 18);
    int matrix = m <= 14 && m != 3;
    return primaries && transfer && matrix;
}

// A coded picture may round its size up to whole coding blocks (at most 64 samples) and crop
// back to 'ispe' with its conformance window; its colours must be ones libheif knows.
static int sps_verdict(const uint8_t *nal, size_t length, uint32_t ispe_width, uint32_t ispe_height) {
    ac_sps sps;
    int read = ac_sps_read(nal, length, &sps);
    if (!sps.has_size) return SPS_TOO_LARGE;  // as before: a size that cannot be read is not trusted
    if (!fits_either_way(sps.width, sps.height, ((uint64_t)ispe_width + 63) / 64 * 64, ((uint64_t)ispe_height + 63) / 64 * 64)) {
        return SPS_TOO_LARGE;
    }
    if (!read) return SPS_UNREADABLE;
    if (sps.has_colour && !known_colours(&sps)) return SPS_UNKNOWN_COLOURS;
    return SPS_OK;
}

static int refuse_sps(ac_result *result, int verdict) {
    switch (verdict) {
    case SPS_UNREADABLE:
        return refuse(result, AC_CORRUPT, "a HEIC image's HEVC parameters cannot be read");
    case SPS_UNKNOWN_COLOURS:
        return refuse(result, AC_CORRUPT, "a HEIC image's HEVC stream declares colours that are not defined");
    default:
        return refuse(result, AC_CORRUPT, "a HEIC image's HEVC stream declares a picture larger than the image");
    }
}

// MARK: item data

static int refuse_spans(ac_result *result, int verdict) {
    return refuse(result, AC_CORRUPT, verdict == SPANS_REPEAT
        ? "a HEIC image's data is longer than the file: its extents repeat the same bytes"
        : "a HEIC image's data cannot be located in the file");
}

// Every SPS in an item's data (4-byte length-prefixed NAL units, as libheif hands them to
// libde265) must pass sps_verdict; the first that does not is the verdict. One pass: a unit's first bytes are peeked (at most
// SPS_READ_BYTES, never more than the unit holds), then the reader skips the unit.
static int item_data_verdict(const uint8_t *data, const span *spans, size_t count, uint32_t width, uint32_t height) {
    item_reader reader = {data, spans, count, 0, 0};
    uint8_t prefix[4], nal[SPS_READ_BYTES];
    while (ac_item_peek(&reader, prefix, 4) == 4) {
        ac_item_skip(&reader, 4);
        uint64_t length = be(prefix, 4);
        size_t got = ac_item_peek(&reader, nal, length < sizeof nal ? (size_t)length : sizeof nal);
        if (got >= 1 && ((nal[0] >> 1) & 63) == HEVC_SPS) {
            int verdict = sps_verdict(nal, got, width, height);
            if (verdict != SPS_OK) return verdict;
        }
        if (ac_item_skip(&reader, length) < length) break;
    }
    return SPS_OK;
}

// Every SPS in an 'hvcC' record: 22 bytes of configuration, then arrays of 2-byte
// length-prefixed NAL units.
static int configuration_verdict(const uint8_t *data, span hvcc, uint32_t width, uint32_t height) {
    if (hvcc.end - hvcc.start < 23) return SPS_OK;  // libheif refuses a record this short
    size_t at = hvcc.start + 22;
    int arrays = data[at++];
    for (int a = 0; a < arrays; a++) {
        if (hvcc.end - at < 3) return SPS_OK;
        size_t units = (size_t)be(data + at + 1, 2);
        at += 3;
        for (size_t u = 0; u < units; u++) {
            if (hvcc.end - at < 2) return SPS_OK;
            size_t length = (size_t)be(data + at, 2);
            at += 2;
            size_t available = hvcc.end - at < length ? hvcc.end - at : length;
            // the unit's own header says what it is (as libde265 reads it), not the array's type
            if (available >= 1 && ((data[at] >> 1) & 63) == HEVC_SPS) {
                int verdict = sps_verdict(data + at, available, width, height);
                if (verdict != SPS_OK) return verdict;
            }
            at += available;
        }
    }
    return SPS_OK;
}

// The canvas a derived image ('grid', 'iovl') asks for, from its descriptor: libheif 1.15
// allocates it as written, whatever the image's 'ispe' says. 0 when it cannot be read.
static int derived_canvas(uint32_t type, const uint8_t *descriptor, size_t length, uint64_t *width, uint64_t *height) {
    if (length < 2) return 0;
    size_t field = (descriptor[1] & 1) ? 4 : 2, at;
    if (type == ITEM_GRID) {
        at = 4;  // version, flags, rows - 1, columns - 1
    } else {
        at = 2 + 8;  // version, flags, four 16-bit fill values (libheif reads four)
    }
    if (length < at + 2 * field) return 0;
    *width = be(descriptor + at, (int)field);
    *height = be(descriptor + at + field, (int)field);
    return 1;
}

// MARK: images and their sizes

typedef struct { uint32_t item, index; } association;  // an item and a 1-based 'ipco' index
typedef struct { uint32_t item, type; } item_info;
typedef struct { uint32_t width, height; int known; } fitted;

static int compare_pairs(const void *a, const void *b) {
    const uint32_t *x = a, *y = b;  // both structs are two uint32_t: item first
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

typedef struct {
    const uint8_t *data;
    size_t size;
    uint64_t max_pixels;
    span idat;
    locations where;
    span *properties;       // the children of 'ipco', in order
    size_t property_count;
    association *associations;
    size_t association_count;
    item_info *items;
    size_t item_count;
    span *spans;
    fitted *fits;           // per property: the size its 'hvcC' was last found to fit
    uint64_t budget;        // bytes the checks may still read (see spend)
} checker;

// Every byte the checks read is paid from a budget of twice the file: a file's own images read
// their data once and their configurations a few times, well within it, but items that share
// their data, or a large 'hvcC' shared by thousands of items of different sizes, would make the
// walk quadratic in the file. They are refused instead.
static int spend(checker *c, uint64_t bytes, ac_result *result) {
    if (bytes > c->budget) {
        refuse(result, AC_CORRUPT, "the HEIC's images share their data or configuration: reading them would cost more than twice the file's size");
        return 0;
    }
    c->budget -= bytes;
    return 1;
}

static void read_properties(checker *c, span ipco) {
    size_t extent = 0, header = 0;
    uint32_t type = 0;
    for (size_t at = ipco.start; at < ipco.end && (extent = ac_box_at(c->data, at, ipco.end, &type, &header)) > 0;
         at += extent) {
        c->properties[c->property_count++] = (span){at, at + extent};
    }
}

// One 'ipma' box: entries of item id, association count, and 1- or 2-byte property indices
// (the top bit of each marks it essential). Every 'ipma' counts: libheif merges them.
static void read_associations(checker *c, span ipma, int version, int flags) {
    size_t id_bytes = version < 1 ? 2 : 4, index_bytes = (flags & 1) ? 2 : 1, at = ipma.start;
    if (ipma.end - at < 4) return;
    uint32_t entries = (uint32_t)be(c->data + at, 4);
    at += 4;
    for (uint32_t e = 0; e < entries; e++) {
        if (ipma.end - at < id_bytes + 1) return;
        uint32_t item = (uint32_t)be(c->data + at, (int)id_bytes);
        size_t count = c->data[at + id_bytes];
        at += id_bytes + 1;
        for (size_t i = 0; i < count && ipma.end - at >= index_bytes; i++, at += index_bytes) {
            uint32_t raw = (uint32_t)be(c->data + at, (int)index_bytes);
            c->associations[c->association_count++] = (association){item, index_bytes == 2 ? raw & 0x7FFF : raw & 0x7F};
        }
    }
}

// 'iinf': the items and their types ('infe' versions 2 and 3; older ones name no type).
static void read_items(checker *c, span iinf, int version) {
    size_t at = iinf.start + (version == 0 ? 2 : 4), extent = 0, header = 0;
    uint32_t type = 0;
    for (; at < iinf.end && (extent = ac_box_at(c->data, at, iinf.end, &type, &header)) > 0; at += extent) {
        if (type != BOX_INFE || extent < header + 4) continue;
        size_t body = at + header;
        int infe_version = c->data[body];
        size_t id_bytes = infe_version == 3 ? 4 : 2;
        if (infe_version < 2 || extent < header + 4 + id_bytes + 2 + 4) continue;
        c->items[c->item_count++] = (item_info){(uint32_t)be(c->data + body + 4, (int)id_bytes),
                                                (uint32_t)be(c->data + body + 4 + id_bytes + 2, 4)};
    }
}

static int check_item(checker *c, item_info item, ac_result *result) {
    association key = {item.item, 0};
    size_t first = 0, high = c->association_count;
    while (first < high) {
        size_t mid = (first + high) / 2;
        if (compare_pairs(&c->associations[mid], &key) < 0) first = mid + 1; else high = mid;
    }
    uint32_t width = 0, height = 0;
    int has_size = 0, coded = 0;
    size_t last = first;
    for (; last < c->association_count && c->associations[last].item == item.item; last++) {
        uint32_t index = c->associations[last].index;
        if (index == 0 || index > c->property_count) continue;
        span property = c->properties[index - 1];
        uint32_t type = (uint32_t)be(c->data + property.start + 4, 4);
        if (type == BOX_AV1C) {
            return refuse(result, AC_UNSUPPORTED,
                          "the HEIF file uses a codec or feature that is not supported (HEVC-coded HEIC is)");
        }
        if (type == BOX_HVCC) coded = 1;
        size_t header = be(c->data + property.start, 4) == 1 ? 16 : 8;
        if (type != BOX_ISPE || property.end - property.start < header + 12) continue;
        const uint8_t *size = c->data + property.start + header + 4;
        uint32_t w = (uint32_t)be(size, 4), h = (uint32_t)be(size + 4, 4);
        if ((uint64_t)w * h > c->max_pixels) {
            return refuse(result, AC_TOO_LARGE, "a HEIC image inside the file is over the decoder's size limits");
        }
        if (w > width) width = w;
        if (h > height) height = h;
        has_size = 1;
    }
    int derived = item.type == ITEM_GRID || item.type == ITEM_IOVL;
    if (!coded && !derived) return AC_OK;
    if (!has_size) return refuse(result, AC_CORRUPT, "a HEIC image has no size ('ispe')");
    location where = {.item = item.item};
    const location *entry =
        c->where.count == 0 ? NULL : bsearch(&where, c->where.items, c->where.count, sizeof where, ac_compare_locations);
    size_t spans = 0;
    int verdict = entry != NULL ? ac_item_spans(c->data, c->size, c->idat, entry, c->spans, &spans) : SPANS_OK;
    if (verdict != SPANS_OK) return refuse_spans(result, verdict);
    if (derived) {
        uint8_t descriptor[32];
        item_reader reader = {c->data, c->spans, spans, 0, 0};
        size_t got = ac_item_peek(&reader, descriptor, sizeof descriptor);
        uint64_t canvas_width = 0, canvas_height = 0;
        if (got > 0 && derived_canvas(item.type, descriptor, got, &canvas_width, &canvas_height) &&
            !fits_either_way(canvas_width, canvas_height, width, height)) {
            return refuse(result, AC_CORRUPT, "a HEIC image's grid or overlay is larger than the image");
        }
        return AC_OK;
    }
    for (size_t i = first; i < last; i++) {
        uint32_t index = c->associations[i].index;
        if (index == 0 || index > c->property_count) continue;
        span property = c->properties[index - 1];
        if ((uint32_t)be(c->data + property.start + 4, 4) != BOX_HVCC) continue;
        // The tiles of a grid share one 'hvcC' and one size: it is read once for them all.
        fitted *last_fit = &c->fits[index - 1];
        if (last_fit->known && last_fit->width == width && last_fit->height == height) continue;
        if (!spend(c, property.end - property.start, result)) return result->code;
        size_t header = be(c->data + property.start, 4) == 1 ? 16 : 8;
        int sps = configuration_verdict(c->data, (span){property.start + header, property.end}, width, height);
        if (sps != SPS_OK) return refuse_sps(result, sps);
        *last_fit = (fitted){width, height, 1};
    }
    size_t length = 0;
    for (size_t i = 0; i < spans; i++) length += c->spans[i].end - c->spans[i].start;
    if (!spend(c, length, result)) return result->code;
    int sps = item_data_verdict(c->data, c->spans, spans, width, height);
    if (sps != SPS_OK) return refuse_sps(result, sps);
    return AC_OK;
}

static int check_items(checker *c, span meta, span iprp, ac_result *result) {
    int iinf_version = 0, iloc_version = 0;
    span iinf = ac_box_child(c->data, meta, BOX_IINF, 1, &iinf_version);
    span iloc = ac_box_child(c->data, meta, BOX_ILOC, 1, &iloc_version);
    span ipco = iprp.start != 0 ? ac_box_child(c->data, iprp, BOX_IPCO, 0, NULL) : (span){0, 0};
    if (iinf.start == 0) return AC_OK;  // no items: libheif has nothing to decode
    if (iloc.start != 0 && !ac_read_locations(c->data, iloc, iloc_version, &c->where)) {
        return refuse(result, AC_CORRUPT, "the HEIC's item locations cannot be read");
    }
    // Every item's data must lie inside the file (and inside 'idat' when it is there).
    for (size_t i = 0; i < c->where.count; i++) {
        size_t spans = 0;
        int verdict = ac_item_spans(c->data, c->size, c->idat, &c->where.items[i], c->spans, &spans);
        if (verdict != SPANS_OK) return refuse_spans(result, verdict);
    }
    read_properties(c, ipco);
    size_t extent = 0, header = 0;
    uint32_t type = 0;
    for (size_t at = iprp.start; iprp.start != 0 && at < iprp.end &&
                                 (extent = ac_box_at(c->data, at, iprp.end, &type, &header)) > 0;
         at += extent) {
        if (type == BOX_IPMA && extent >= header + 4) {
            read_associations(c, (span){at + header + 4, at + extent}, c->data[at + header],
                              (int)be(c->data + at + header + 1, 3));
        }
    }
    qsort(c->associations, c->association_count, sizeof *c->associations, compare_pairs);
    read_items(c, iinf, iinf_version);
    // An item listed twice is checked once (libheif keeps one of them).
    qsort(c->items, c->item_count, sizeof *c->items, compare_pairs);
    for (size_t i = 0; i < c->item_count; i++) {
        if (i > 0 && c->items[i].item == c->items[i - 1].item && c->items[i].type == c->items[i - 1].type) continue;
        int code = check_item(c, c->items[i], result);
        if (code != AC_OK) return code;
    }
    return AC_OK;
}

int ac_heif_check_structure(const uint8_t *data, size_t size, uint64_t max_pixels, ac_result *result) {
    span meta = ac_box_child(data, (span){0, size}, BOX_META, 1, NULL);
    if (meta.start == 0) return AC_OK;  // libheif refuses a file without one
    int iref_version = 0;
    span iref = ac_box_child(data, meta, BOX_IREF, 1, &iref_version);
    if (iref.start != 0 && has_reference_loop(data, iref, iref_version)) {
        return refuse(result, AC_CORRUPT, "the HEIC's item references form a loop");
    }
    // Every list below holds at most one entry per 8 bytes (a box) or per byte (an index) of
    // the meta box, so they are sized by it.
    size_t room = meta.end - meta.start + 1;
    checker c = {data, size, max_pixels, ac_box_child(data, meta, BOX_IDAT, 0, NULL), {0}, NULL, 0, NULL, 0, NULL, 0, NULL,
                 NULL, 2 * (uint64_t)size + 4096};
    span iprp = ac_box_child(data, meta, BOX_IPRP, 0, NULL);
    c.properties = malloc(sizeof *c.properties * (room / 8 + 1));
    c.associations = malloc(sizeof *c.associations * room);
    c.items = malloc(sizeof *c.items * (room / 8 + 1));
    c.spans = malloc(sizeof *c.spans * MAX_EXTENTS);
    c.fits = calloc(room / 8 + 1, sizeof *c.fits);
    int code = c.properties == NULL || c.associations == NULL || c.items == NULL || c.spans == NULL || c.fits == NULL
        ? refuse(result, AC_NO_MEMORY, "out of memory")
        : check_items(&c, meta, iprp, result);
    free(c.where.items);
    free(c.properties);
    free(c.associations);
    free(c.items);
    free(c.spans);
    free(c.fits);
    return code;
}
