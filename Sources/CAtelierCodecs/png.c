// PNG through libpng's simplified API: it converts every PNG flavour (1–16 bit, palette, gray, alpha) to
// the format asked for, and reports errors through the png_image struct — no longjmp here.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

#include "atelier_codecs.h"

static int ac_png_fail(ac_result *result, png_imagep image, int code, const char *fallback) {
    result->code = code;
    snprintf(result->message, sizeof result->message, "%s",
             image != NULL && image->message[0] != '\0' ? image->message : fallback);
    if (image != NULL) png_image_free(image);
    return code;
}

// A PNG is a chain of chunks (length, type, data, CRC) ending with IEND. Walking the lengths
// (no CRCs, no inflating: a few jumps) shows a file cut short — its last chunk runs past the end
// of the data, or IEND never comes — which libpng would only notice mid-decode, or not at all
// when just IEND is missing. Bytes after IEND are not looked at.
static int ac_png_complete(const uint8_t *data, size_t size, ac_result *result) {
    size_t at = 8;
    while (size - at >= 12) {
        uint32_t length = (uint32_t)data[at] << 24 | (uint32_t)data[at + 1] << 16 | (uint32_t)data[at + 2] << 8 | data[at + 3];
        if (length > 0x7FFFFFFFu) break;  // the format's own limit
        if ((size_t)length > size - at - 12) break;
        if (memcmp(data + at + 4, "IEND", 4) == 0) return AC_OK;
        at += 12 + (size_t)length;
    }
    result->code = AC_CORRUPT;
    snprintf(result->message, sizeof result->message, "the PNG's chunks end before IEND: it was cut short");
    return AC_CORRUPT;
}

int ac_png_decode_into(const uint8_t *data, size_t size, uint64_t max_pixels,
                       uint8_t *target, size_t capacity, ac_result *result) {
    png_image image;
    memset(result, 0, sizeof *result);
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (size < 8) return ac_png_fail(result, NULL, AC_CORRUPT, "the PNG is empty or truncated");
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        return ac_png_fail(result, &image, AC_CORRUPT, "not a valid PNG");
    }
    if (ac_png_complete(data, size, result) != AC_OK) {
        png_image_free(&image);
        return AC_CORRUPT;
    }
    result->source_width = (int)image.width;
    result->source_height = (int)image.height;
    if ((uint64_t)image.width * image.height > max_pixels) {
        snprintf(result->message, sizeof result->message, "the image is %ux%u, over the limit of %llu pixels",
                 image.width, image.height, (unsigned long long)max_pixels);
        result->code = AC_TOO_LARGE;
        png_image_free(&image);
        return AC_TOO_LARGE;
    }
    // RGB unless the file has alpha (an alpha channel, or tRNS): an opaque 50 MP PNG is 150 MB
    // of pixels, not 200.
    int channels = (image.format & PNG_FORMAT_FLAG_ALPHA) ? 4 : 3;
    image.format = channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    result->channels = channels;
    size_t stride = (size_t)image.width * (size_t)channels;
    if (target == NULL || (uint64_t)stride * image.height > (uint64_t)capacity) {
        snprintf(result->message, sizeof result->message, "the buffer does not fit a %ux%u image", image.width, image.height);
        result->code = AC_NO_MEMORY;
        png_image_free(&image);
        return AC_NO_MEMORY;
    }
    if (!png_image_finish_read(&image, NULL, target, (png_int_32)stride, NULL)) {
        return ac_png_fail(result, &image, AC_CORRUPT, "the PNG is damaged or truncated");
    }
    result->width = (int)image.width;
    result->height = (int)image.height;
    png_image_free(&image);
    return AC_OK;
}

int ac_png_probe(const uint8_t *data, size_t size, ac_result *result) {
    png_image image;
    memset(result, 0, sizeof *result);
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (size < 8) return ac_png_fail(result, NULL, AC_CORRUPT, "the PNG is empty or truncated");
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        return ac_png_fail(result, &image, AC_CORRUPT, "not a valid PNG");
    }
    result->width = result->source_width = (int)image.width;
    result->height = result->source_height = (int)image.height;
    result->channels = (image.format & PNG_FORMAT_FLAG_ALPHA) ? 4 : 3;
    png_image_free(&image);
    return ac_png_complete(data, size, result);
}

int ac_png_encode(const uint8_t *pixels, int width, int height, int channels,
                  uint8_t **out, size_t *out_size, ac_result *result) {
    png_image image;
    memset(result, 0, sizeof *result);
    memset(&image, 0, sizeof image);
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        return ac_png_fail(result, NULL, AC_UNSUPPORTED, "PNG encoding takes RGB or RGBA pixels");
    }
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    png_int_32 stride = (png_int_32)(width * channels);
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, stride, NULL)) {
        return ac_png_fail(result, &image, AC_CORRUPT, "PNG encoding failed");
    }
    uint8_t *buffer = malloc(size);
    if (buffer == NULL) return ac_png_fail(result, &image, AC_NO_MEMORY, "out of memory for the PNG");
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, stride, NULL)) {
        free(buffer);
        return ac_png_fail(result, &image, AC_CORRUPT, "PNG encoding failed");
    }
    *out = buffer;
    *out_size = size;
    return AC_OK;
}
