// Reading a HEIF file's boxes (heif_boxes.h): box headers and children, 'iloc' and an item's
// extents, an item's data across them, an HEVC SPS's picture size and colour description. Every length is checked
// against the data; what cannot be read is reported, never read past. The checks that use them,
// and refuse a file, are heif_structure.c's.
#include <stdlib.h>
#include <string.h>

#include "heif_boxes.h"

// The boxes are read as libheif 1.15 reads them (ISO/IEC 23008-12, 14496-12): 'meta' at the
// top level; in it 'iinf', 'iloc', 'idat', 'iref' and 'iprp' ('ipco' properties, 'ipma'
// associations). Anything this reader cannot follow is left to libheif, which refuses it too —
// except where skipping would leave a size unchecked: there the file is refused.

// The extent of the box at `at` (header included); 0 when it does not fit before `end`.
size_t ac_box_at(const uint8_t *data, size_t at, size_t end, uint32_t *type, size_t *header) {
    if (at > end || end - at < 8) return 0;
    uint64_t size = be(data + at, 4);
    *type = (uint32_t)be(data + at + 4, 4);
    *header = 8;
    if (size == 1) {
        if (end - at < 16) return 0;
        size = be(data + at + 8, 8);
        *header = 16;
    } else if (size == 0) {
        size = end - at;
    }
    if (size < *header || size > end - at) return 0;
    return (size_t)size;
}

// The content of the first box of `type` among the children in `within` ({0, 0} if none).
// `full` skips a FullBox's version and flags (the version is kept in `version`).
span ac_box_child(const uint8_t *data, span within, uint32_t wanted, int full, int *version) {
    size_t extent = 0, header = 0;
    uint32_t type = 0;
    for (size_t at = within.start; at < within.end && (extent = ac_box_at(data, at, within.end, &type, &header)) > 0;
         at += extent) {
        if (type != wanted) continue;
        size_t start = at + header;
        if (full) {
            if (extent < header + 4) return (span){0, 0};
            if (version != NULL) *version = data[start];
            start += 4;
        }
        return (span){start, at + extent};
    }
    return (span){0, 0};
}

// MARK: HEVC sequence parameter sets

typedef struct {
    const uint8_t *bytes;
    size_t bits, at;
    int overrun;
} bit_reader;

static uint64_t bits(bit_reader *reader, int count) {
    uint64_t value = 0;
    for (int i = 0; i < count; i++) {
        if (reader->at >= reader->bits) { reader->overrun = 1; return 0; }
        value = value << 1 | ((reader->bytes[reader->at / 8] >> (7 - reader->at % 8)) & 1);
        reader->at++;
    }
    return value;
}

static uint64_t exp_golomb(bit_reader *reader) {
    int zeros = 0;
    while (!reader->overrun && bits(reader, 1) == 0) {
        if (++zeros > 32) { reader->overrun = 1; return 0; }
    }
    return ((uint64_t)1 << zeros) - 1 + bits(reader, zeros);
}

// One short-term reference picture set of an SPS (H.265 7.3.7), skipped; its number of delta
// POCs is kept in `deltas[index]` for the sets that predict from it. 0 when out of range.
static int skip_short_term_set(bit_reader *reader, int index, int *deltas) {
    if (index != 0 && bits(reader, 1)) {  // inter_ref_pic_set_prediction_flag
        bits(reader, 1);        // delta_rps_sign
        exp_golomb(reader);     // abs_delta_rps_minus1
        int count = 0;
        for (int j = 0; j <= deltas[index - 1]; j++) {
            int used = (int)bits(reader, 1);  // used_by_curr_pic_flag
            if (used || bits(reader, 1)) count++;  // use_delta_flag
        }
        deltas[index] = count;
        return count <= 32;
    }
    uint64_t negative = exp_golomb(reader), positive = exp_golomb(reader);
    if (negative > 16 || positive > 16) return 0;
    for (uint64_t i = 0; i < negative + positive; i++) {
        exp_golomb(reader);  // delta_poc_s0/s1_minus1
        bits(reader, 1);     // used_by_curr_pic_s0/s1_flag
    }
    deltas[index] = (int)(negative + positive);
    return 1;
}

// What an SPS NAL unit (2-byte header included) declares: its picture size, and the colour
// description of its VUI (H.265 7.3.2.2, E.2.1). Emulation-prevention bytes (00 00 03) are
// removed first, as a decoder does. 0 when it cannot be read as far as the colour description
// (or the VUI's absence) within SPS_READ_BYTES, or a count in it is out of range.
int ac_sps_read(const uint8_t *nal, size_t length, ac_sps *sps) {
    memset(sps, 0, sizeof *sps);
    uint8_t rbsp[SPS_READ_BYTES];
    size_t count = 0, zeros = 0;
    for (size_t i = 2; i < length && count < sizeof rbsp; i++) {
        if (zeros >= 2 && nal[i] == 3) { zeros = 0; continue; }
        zeros = nal[i] == 0 ? zeros + 1 : 0;
        rbsp[count++] = nal[i];
    }
    bit_reader reader = {rbsp, count * 8, 0, 0};
    bits(&reader, 4);  // sps_video_parameter_set_id
    int sub_layers = (int)bits(&reader, 3);  // sps_max_sub_layers_minus1
    bits(&reader, 1);  // sps_temporal_id_nesting_flag
    bits(&reader, 88);  // general profile: space, tier, idc, compatibility, constraint flags
    bits(&reader, 8);   // general_level_idc
    int profile_present[8] = {0}, level_present[8] = {0};
    for (int i = 0; i < sub_layers; i++) {
        profile_present[i] = (int)bits(&reader, 1);
        level_present[i] = (int)bits(&reader, 1);
    }
    if (sub_layers > 0) {
        for (int i = sub_layers; i < 8; i++) bits(&reader, 2);
    }
    for (int i = 0; i < sub_layers; i++) {
        if (profile_present[i]) bits(&reader, 88);
        if (level_present[i]) bits(&reader, 8);
    }
    exp_golomb(&reader);  // sps_seq_parameter_set_id
    if (exp_golomb(&reader) == 3) bits(&reader, 1);  // chroma_format_idc; separate_colour_plane_flag
    sps->width = exp_golomb(&reader);
    sps->height = exp_golomb(&reader);
    if (reader.overrun) return 0;
    sps->has_size = 1;
    if (bits(&reader, 1)) {  // conformance_window_flag
        for (int i = 0; i < 4; i++) exp_golomb(&reader);
    }
    exp_golomb(&reader);  // bit_depth_luma_minus8
    exp_golomb(&reader);  // bit_depth_chroma_minus8
    uint64_t poc_bits = exp_golomb(&reader) + 4;  // log2_max_pic_order_cnt_lsb_minus4
    if (poc_bits > 16) return 0;
    int ordering_for_all = (int)bits(&reader, 1);  // sps_sub_layer_ordering_info_present_flag
    for (int i = ordering_for_all ? 0 : sub_layers; i <= sub_layers; i++) {
        for (int k = 0; k < 3; k++) exp_golomb(&reader);  // max_dec_pic_buffering, num_reorder, latency
    }
    for (int i = 0; i < 6; i++) exp_golomb(&reader);  // coding and transform block sizes and depths
    if (bits(&reader, 1) && bits(&reader, 1)) {  // scaling_list_enabled_flag, sps_scaling_list_data_present_flag
        for (int size = 0; size < 4 && !reader.overrun; size++) {
            for (int matrix = 0; matrix < 6; matrix += size == 3 ? 3 : 1) {
                if (!bits(&reader, 1)) {  // scaling_list_pred_mode_flag
                    exp_golomb(&reader);  // scaling_list_pred_matrix_id_delta
                    continue;
                }
                int coefficients = size == 0 ? 16 : 64;
                if (size > 1) exp_golomb(&reader);  // scaling_list_dc_coef_minus8
                for (int i = 0; i < coefficients && !reader.overrun; i++) exp_golomb(&reader);
            }
        }
    }
    bits(&reader, 2);  // amp_enabled_flag, sample_adaptive_offset_enabled_flag
    if (bits(&reader, 1)) {  // pcm_enabled_flag
        bits(&reader, 8);  // pcm sample bit depths
        exp_golomb(&reader);
        exp_golomb(&reader);
        bits(&reader, 1);
    }
    uint64_t sets = exp_golomb(&reader);  // num_short_term_ref_pic_sets
    if (sets > 64) return 0;
    int deltas[64] = {0};
    for (int i = 0; i < (int)sets && !reader.overrun; i++) {
        if (!skip_short_term_set(&reader, i, deltas)) return 0;
    }
    if (bits(&reader, 1)) {  // long_term_ref_pics_present_flag
        uint64_t long_term = exp_golomb(&reader);
        if (long_term > 32) return 0;
        for (uint64_t i = 0; i < long_term && !reader.overrun; i++) bits(&reader, (int)poc_bits + 1);
    }
    bits(&reader, 2);  // sps_temporal_mvp_enabled_flag, strong_intra_smoothing_enabled_flag
    if (bits(&reader, 1)) {  // vui_parameters_present_flag
        if (bits(&reader, 1) && bits(&reader, 8) == 255) bits(&reader, 32);  // aspect ratio; SAR
        if (bits(&reader, 1)) bits(&reader, 1);  // overscan
        if (bits(&reader, 1)) {  // video_signal_type_present_flag
            bits(&reader, 4);    // video_format, video_full_range_flag
            if (bits(&reader, 1)) {  // colour_description_present_flag
                sps->has_colour = 1;
                sps->primaries = (int)bits(&reader, 8);
                sps->transfer = (int)bits(&reader, 8);
                sps->matrix = (int)bits(&reader, 8);
            }
        }
    }
    return !reader.overrun;
}

// MARK: item locations

int ac_compare_locations(const void *a, const void *b) {
    const location *x = a, *y = b;
    return x->item < y->item ? -1 : x->item > y->item;
}

// Reads 'iloc'; 0 when it does not parse (libheif refuses such a file before decoding).
int ac_read_locations(const uint8_t *data, span iloc, int version, locations *out) {
    memset(out, 0, sizeof *out);
    if (version > 2 || iloc.end - iloc.start < 2) return 0;
    size_t at = iloc.start;
    out->version = version;
    out->offset_size = data[at] >> 4;
    out->length_size = data[at] & 15;
    int base_size = data[at + 1] >> 4;
    out->index_size = version >= 1 ? data[at + 1] & 15 : 0;
    at += 2;
    size_t id_bytes = version < 2 ? 2 : 4;
    if (iloc.end - at < id_bytes) return 0;
    uint64_t declared = be(data + at, (int)id_bytes);
    at += id_bytes;
    size_t room = (iloc.end - at) / (id_bytes + 4) + 1;
    size_t capacity = declared < room ? (size_t)declared : room;
    out->items = malloc(sizeof *out->items * (capacity > 0 ? capacity : 1));
    if (out->items == NULL) return 0;
    size_t extent_bytes = (size_t)out->index_size + (size_t)out->offset_size + (size_t)out->length_size;
    for (uint64_t n = 0; n < declared; n++) {
        size_t fixed = id_bytes + (version >= 1 ? 2 : 0) + 2 + (size_t)base_size + 2;
        if (iloc.end - at < fixed || out->count >= capacity) return 0;
        location entry = {.offset_size = out->offset_size, .length_size = out->length_size,
                          .index_size = out->index_size};
        entry.item = (uint32_t)be(data + at, (int)id_bytes);
        at += id_bytes;
        if (version >= 1) { entry.method = data[at + 1] & 15; at += 2; }
        at += 2;  // data_reference_index
        entry.base = be(data + at, base_size);
        at += (size_t)base_size;
        entry.extent_count = (uint32_t)be(data + at, 2);
        at += 2;
        entry.extents = at;
        if ((iloc.end - at) / (extent_bytes > 0 ? extent_bytes : 1) < entry.extent_count) return 0;
        at += extent_bytes * entry.extent_count;
        out->items[out->count++] = entry;
    }
    qsort(out->items, out->count, sizeof *out->items, ac_compare_locations);
    return 1;
}

// The spans of an item's data, in order. SPANS_OUTSIDE when they cannot all be followed in this file (too
// many, outside the file or past the end of 'idat' — where libheif 1.15 reads on into whatever
// boxes follow — or a construction method this reader does not follow); SPANS_REPEAT when
// together they are longer than the data they are cut from: an extent of length 0 means "to the
// end", so 32 of them would make one item of 32 copies of the file, and every walk of
// heif_structure.c would pay for each copy. An item's data is at most its source's size, so
// reading it is linear in the file.
int ac_item_spans(const uint8_t *data, size_t size, span idat, const location *entry, span *spans, size_t *count) {
    *count = 0;
    if (entry->method > 1 || entry->extent_count > MAX_EXTENTS) return SPANS_OUTSIDE;
    span source = entry->method == 0 ? (span){0, size} : idat;
    uint64_t room = source.end - source.start, total = 0;
    size_t at = entry->extents;
    for (uint32_t e = 0; e < entry->extent_count; e++) {
        at += (size_t)entry->index_size;
        uint64_t offset = be(data + at, entry->offset_size);
        at += (size_t)entry->offset_size;
        uint64_t length = be(data + at, entry->length_size);
        at += (size_t)entry->length_size;
        uint64_t start = entry->base + offset;
        if (start < entry->base || start > room) return SPANS_OUTSIDE;
        if (length == 0) length = room - start;  // to the end
        if (length > room - start) return SPANS_OUTSIDE;
        total += length;
        if (total > room) return SPANS_REPEAT;
        spans[(*count)++] = (span){source.start + (size_t)start, source.start + (size_t)(start + length)};
    }
    return SPANS_OK;
}

// Copies up to `wanted` bytes from the reader's position without moving it; returns how many.
size_t ac_item_peek(const item_reader *reader, uint8_t *out, size_t wanted) {
    size_t got = 0, offset = reader->offset;
    for (size_t i = reader->index; i < reader->count && got < wanted; i++, offset = 0) {
        size_t length = reader->spans[i].end - reader->spans[i].start;
        if (offset >= length) continue;
        size_t take = length - offset < wanted - got ? length - offset : wanted - got;
        memcpy(out + got, reader->data + reader->spans[i].start + offset, take);
        got += take;
    }
    return got;
}

// Moves the position on by `length` bytes (or to the end); returns how many it moved.
uint64_t ac_item_skip(item_reader *reader, uint64_t length) {
    uint64_t moved = 0;
    while (reader->index < reader->count && moved < length) {
        size_t left = reader->spans[reader->index].end - reader->spans[reader->index].start - reader->offset;
        if (length - moved < left) {
            reader->offset += (size_t)(length - moved);
            return length;
        }
        moved += left;
        reader->index++;
        reader->offset = 0;
    }
    return moved;
}
