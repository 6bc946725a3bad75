// WebP through libwebp: still images, lossy or lossless, with or without alpha. The size comes
// from WebPGetFeatures (the bitstream header) before any pixel memory is allocated.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "atelier_codecs.h"
#include "atelier_color.h"

static int ac_webp_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features, ac_result *result) {
    VP8StatusCode status = size < 12 ? VP8_STATUS_NOT_ENOUGH_DATA : WebPGetFeatures(data, size, features);
    if (status != VP8_STATUS_OK) {
        result->code = status == VP8_STATUS_UNSUPPORTED_FEATURE ? AC_UNSUPPORTED : AC_CORRUPT;
        snprintf(result->message, sizeof result->message, "%s",
                 status == VP8_STATUS_NOT_ENOUGH_DATA ? "the WebP is truncated" : "not a valid WebP");
        return result->code;
    }
    // WebPGetFeatures reads only the first chunks. The RIFF header gives the file's length: a
    // file shorter than that was cut short (longer is fine: bytes after the RIFF chunk are
    // ignored). Sniffing guarantees the "RIFF" … "WEBP" header; a bare VP8/VP8L stream has no
    // length to check, and libwebp's own checks stand.
    if (memcmp(data, "RIFF", 4) == 0) {
        uint32_t riff = (uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 | (uint32_t)data[7] << 24;
        if ((uint64_t)riff + 8 > (uint64_t)size) {
            result->code = AC_CORRUPT;
            snprintf(result->message, sizeof result->message, "the WebP is %zu bytes, its header says %llu: it was cut short",
                     size, (unsigned long long)riff + 8);
            return AC_CORRUPT;
        }
    }
    result->source_width = features->width;
    result->source_height = features->height;
    result->channels = features->has_alpha ? 4 : 3;
    if (features->has_animation) {
        result->code = AC_UNSUPPORTED;
        snprintf(result->message, sizeof result->message, "animated WebP is not supported; send a still image");
        return AC_UNSUPPORTED;
    }
    return AC_OK;
}

int ac_webp_probe(const uint8_t *data, size_t size, ac_result *result) {
    WebPBitstreamFeatures features;
    memset(result, 0, sizeof *result);
    int code = ac_webp_features(data, size, &features, result);
    result->width = result->source_width;
    result->height = result->source_height;
    return code;
}

int ac_webp_decode_into(const uint8_t *data, size_t size, uint64_t max_pixels,
                        uint8_t *target, size_t capacity, ac_result *result) {
    WebPBitstreamFeatures features;
    memset(result, 0, sizeof *result);
    int code = ac_webp_features(data, size, &features, result);
    if (code != AC_OK) return code;
    if ((uint64_t)features.width * (uint64_t)features.height > max_pixels) {
        result->code = AC_TOO_LARGE;
        snprintf(result->message, sizeof result->message, "the image is %dx%d, over the limit of %llu pixels",
                 features.width, features.height, (unsigned long long)max_pixels);
        return AC_TOO_LARGE;
    }
    size_t stride = (size_t)features.width * (size_t)result->channels;
    size_t length = stride * (size_t)features.height;
    if (target == NULL || length > capacity) {
        result->code = AC_NO_MEMORY;
        snprintf(result->message, sizeof result->message, "the buffer does not fit a %dx%d image", features.width, features.height);
        return AC_NO_MEMORY;
    }
    uint8_t *decoded = features.has_alpha ? WebPDecodeRGBAInto(data, size, target, length, (int)stride)
                                          : WebPDecodeRGBInto(data, size, target, length, (int)stride);
    if (decoded == NULL) {
        result->code = AC_CORRUPT;
        snprintf(result->message, sizeof result->message, "the WebP is damaged or truncated");
        return AC_CORRUPT;
    }
    result->width = features.width;
    result->height = features.height;
    return AC_OK;
}

int ac_webp_encode(const uint8_t *pixels, int width, int height, int channels, int quality,
                   uint8_t **out, size_t *out_size, ac_result *result) {
    memset(result, 0, sizeof *result);
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION || (channels != 3 && channels != 4)) {
        result->code = AC_UNSUPPORTED;
        snprintf(result->message, sizeof result->message, "WebP encoding takes RGB or RGBA pixels up to %d px a side", WEBP_MAX_DIMENSION);
        return AC_UNSUPPORTED;
    }
    uint8_t *encoded = NULL;
    int stride = width * channels;
    size_t size;
    if (quality > 100) {
        size = channels == 4 ? WebPEncodeLosslessRGBA(pixels, width, height, stride, &encoded)
                             : WebPEncodeLosslessRGB(pixels, width, height, stride, &encoded);
    } else {
        size = channels == 4 ? WebPEncodeRGBA(pixels, width, height, stride, (float)quality, &encoded)
                             : WebPEncodeRGB(pixels, width, height, stride, (float)quality, &encoded);
    }
    if (size == 0 || encoded == NULL) {
        result->code = AC_NO_MEMORY;
        snprintf(result->message, sizeof result->message, "WebP encoding failed");
        return AC_NO_MEMORY;
    }
    // Tagged sRGB: libwebpmux rewrites the file as extended (VP8X) with an ICCP chunk.
    WebPData tagged = {NULL, 0};
    size_t icc_size = 0;
    const uint8_t *icc = ac_srgb_icc(&icc_size);
    WebPMux *mux = WebPMuxNew();
    if (mux != NULL && icc != NULL) {
        WebPData image = {encoded, size}, profile = {icc, icc_size};
        if (WebPMuxSetImage(mux, &image, 0) != WEBP_MUX_OK || WebPMuxSetChunk(mux, "ICCP", &profile, 0) != WEBP_MUX_OK
            || WebPMuxAssemble(mux, &tagged) != WEBP_MUX_OK) {
            WebPDataClear(&tagged);
        }
    }
    if (mux != NULL) WebPMuxDelete(mux);
    if (tagged.bytes == NULL) {
        WebPFree(encoded);
        result->code = AC_NO_MEMORY;
        snprintf(result->message, sizeof result->message, "WebP encoding failed");
        return AC_NO_MEMORY;
    }
    WebPFree(encoded);
    size = tagged.size;
    // Copy into malloc'd memory so every output is released the same way (ac_free).
    *out = malloc(size);
    if (*out != NULL) memcpy(*out, tagged.bytes, size);
    WebPDataClear(&tagged);
    if (*out == NULL) {
        result->code = AC_NO_MEMORY;
        snprintf(result->message, sizeof result->message, "out of memory");
        return AC_NO_MEMORY;
    }
    *out_size = size;
    return AC_OK;
}
