// Where JPEG, PNG and WebP files keep their ICC profile, read from the bytes without a decoder
// (HEIF's is read through libheif in heif.c). Every length is checked against the data: a
// carrier that runs past the end, a missing or repeated JPEG chunk, an iCCP that does not
// inflate is `broken` (the picture is then read as sRGB), never a read past the buffer.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "atelier_codecs.h"
#include "atelier_color.h"

// No real profile comes near this; a larger one is treated as damaged.
#define AC_MAX_ICC (8u << 20)

static void ac_broken(ac_color_source *source, const char *reason) {
    free(source->icc);
    source->icc = NULL;
    source->icc_size = 0;
    source->broken = 1;
    snprintf(source->reason, sizeof source->reason, "%s", reason);
}

static uint32_t ac_be32(const uint8_t *p) { return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]; }
static uint32_t ac_le32(const uint8_t *p) { return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0]; }

// ---- JPEG: APP2 "ICC_PROFILE\0" chunks, each with its 1-based sequence number and the count ---

int ac_jpeg_color(const uint8_t *data, size_t size, ac_color_source *source) {
    memset(source, 0, sizeof *source);
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return AC_OK;
    const uint8_t *chunks[256] = {0};
    size_t lengths[256] = {0};
    int count = 0, seen = 0;
    size_t at = 2;
    while (at + 4 <= size) {
        if (data[at] != 0xFF) break;               // not a marker: the header is over (or damaged)
        uint8_t marker = data[at + 1];
        if (marker == 0xFF) { at++; continue; }    // fill byte
        if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { at += 2; continue; }
        if (marker == 0xDA || marker == 0xD9) break;  // the scan begins: no profile comes after it
        size_t length = ((size_t)data[at + 2] << 8) | data[at + 3];
        if (length < 2 || at + 2 + length > size) break;
        const uint8_t *segment = data + at + 4;
        size_t body = length - 2;
        if (marker == 0xE2 && body >= 14 && memcmp(segment, "ICC_PROFILE\0", 12) == 0) {
            int sequence = segment[12], total = segment[13];
            if (sequence == 0 || total == 0 || sequence > total || (count != 0 && total != count) || chunks[sequence] != NULL) {
                ac_broken(source, "the embedded colour profile's JPEG chunks are out of order or repeated; the image was read as sRGB");
                return AC_OK;
            }
            count = total;
            chunks[sequence] = segment + 14;
            lengths[sequence] = body - 14;
            seen++;
        }
        at += 2 + length;
    }
    if (seen == 0) return AC_OK;
    if (seen != count) {
        ac_broken(source, "the embedded colour profile is missing some of its JPEG chunks; the image was read as sRGB");
        return AC_OK;
    }
    size_t total = 0;
    for (int i = 1; i <= count; i++) total += lengths[i];
    if (total == 0 || total > AC_MAX_ICC || (source->icc = malloc(total)) == NULL) {
        ac_broken(source, "the embedded colour profile is empty or too large; the image was read as sRGB");
        return AC_OK;
    }
    size_t offset = 0;
    for (int i = 1; i <= count; i++) {
        memcpy(source->icc + offset, chunks[i], lengths[i]);
        offset += lengths[i];
    }
    source->icc_size = total;
    return AC_OK;
}

// ---- PNG: iCCP (name, NUL, method 0, zlib stream) or sRGB, before the first IDAT -------------

static int ac_inflate(const uint8_t *in, size_t size, uint8_t **out, size_t *out_size) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return 0;
    size_t capacity = 4096, used = 0;
    uint8_t *buffer = malloc(capacity);
    int status = Z_OK;
    stream.next_in = (Bytef *)in;
    stream.avail_in = (uInt)size;
    while (buffer != NULL && status == Z_OK) {
        if (used == capacity) {
            if (capacity >= AC_MAX_ICC) break;
            uint8_t *grown = realloc(buffer, capacity * 2);
            if (grown == NULL) break;
            buffer = grown;
            capacity *= 2;
        }
        stream.next_out = buffer + used;
        stream.avail_out = (uInt)(capacity - used);
        status = inflate(&stream, Z_NO_FLUSH);
        used = capacity - stream.avail_out;
        if (status == Z_BUF_ERROR && stream.avail_in == 0) break;  // cut short
    }
    inflateEnd(&stream);
    if (status != Z_STREAM_END || buffer == NULL) {
        free(buffer);
        return 0;
    }
    *out = buffer;
    *out_size = used;
    return 1;
}

int ac_png_color(const uint8_t *data, size_t size, ac_color_source *source) {
    memset(source, 0, sizeof *source);
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (size < 8 || memcmp(data, signature, 8) != 0) return AC_OK;
    size_t at = 8;
    while (at + 12 <= size) {
        uint32_t length = ac_be32(data + at);
        const uint8_t *type = data + at + 4, *body = data + at + 8;
        if (length > size - at - 12) break;
        if (memcmp(type, "IDAT", 4) == 0 || memcmp(type, "IEND", 4) == 0) break;
        if (memcmp(type, "sRGB", 4) == 0) source->srgb_chunk = 1;
        if (memcmp(type, "iCCP", 4) == 0 && source->icc == NULL && !source->broken) {
            const uint8_t *nul = memchr(body, 0, length < 80 ? length : 80);
            if (nul == NULL || (size_t)(nul - body) + 2 > length || nul[1] != 0
                || !ac_inflate(nul + 2, length - (size_t)(nul - body) - 2, &source->icc, &source->icc_size)) {
                ac_broken(source, "the PNG's colour profile (iCCP) does not inflate; the image was read as sRGB");
            }
        }
        at += 12 + (size_t)length;
    }
    return AC_OK;
}

// ---- WebP: the ICCP chunk of an extended (VP8X) file -----------------------------------------

int ac_webp_color(const uint8_t *data, size_t size, ac_color_source *source) {
    memset(source, 0, sizeof *source);
    if (size < 12 || memcmp(data, "RIFF", 4) != 0 || memcmp(data + 8, "WEBP", 4) != 0) return AC_OK;
    size_t at = 12;
    while (at + 8 <= size) {
        uint32_t length = ac_le32(data + at + 4);
        if (length > size - at - 8) {
            if (memcmp(data + at, "ICCP", 4) == 0) ac_broken(source, "the WebP's colour profile is cut short; the image was read as sRGB");
            break;
        }
        if (memcmp(data + at, "ICCP", 4) == 0) {
            if (length == 0 || length > AC_MAX_ICC || (source->icc = malloc(length)) == NULL) {
                ac_broken(source, "the WebP's colour profile is empty or too large; the image was read as sRGB");
                return AC_OK;
            }
            memcpy(source->icc, data + at + 8, length);
            source->icc_size = length;
            return AC_OK;
        }
        at += 8 + (size_t)length + (length & 1);
    }
    return AC_OK;
}
