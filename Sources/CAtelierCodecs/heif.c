// HEIC/HEIF through libheif (HEVC by libde265). libheif applies the file's own transforms
// (irot/imir/clap) while decoding, so the pixels come out upright: callers must not apply EXIF
// orientation again. The primary image's size is known from the boxes before any decoding.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

#include "atelier_codecs.h"
#include "atelier_color.h"
#include "heif_hdr.h"
#include "heif_structure.h"

static int ac_heif_code(struct heif_error error) {
    if (error.code == heif_error_Memory_allocation_error) return AC_NO_MEMORY;
    if (error.subcode == heif_suberror_Security_limit_exceeded) return AC_TOO_LARGE;
    if (error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype) return AC_UNSUPPORTED;
    return AC_CORRUPT;
}

// Clients see the messages of refusals that are not damage (Swift passes them on), so those are
// ours; a damaged file's message keeps libheif's words for logs and tools (Swift replaces it).
static int ac_heif_fail(ac_result *result, struct heif_error error, const char *what) {
    result->code = ac_heif_code(error);
    switch (result->code) {
    case AC_NO_MEMORY:
        snprintf(result->message, sizeof result->message, "out of memory for the HEIC");
        break;
    case AC_TOO_LARGE:
        snprintf(result->message, sizeof result->message, "the HEIC is over the decoder's size limits");
        break;
    case AC_UNSUPPORTED:
        snprintf(result->message, sizeof result->message,
                 "the HEIF file uses a codec or feature that is not supported (HEVC-coded HEIC is)");
        break;
    default:
        snprintf(result->message, sizeof result->message, "%s: %s", what,
                 error.message != NULL && error.message[0] != '\0' ? error.message : "unknown error");
    }
    return result->code;
}

// Opens `data` and its primary image; fills source_width/height (after transforms).
static int ac_heif_open(const uint8_t *data, size_t size, uint64_t max_pixels, struct heif_context **context,
                        struct heif_image_handle **handle, ac_result *result) {
    *context = NULL;
    *handle = NULL;
    if (size < 12) {
        result->code = AC_CORRUPT;
        snprintf(result->message, sizeof result->message, "the HEIC is empty or truncated");
        return AC_CORRUPT;
    }
    // What libheif would follow without limits (reference loops, HEVC pictures larger than their
    // image) is refused before libheif reads the file: see heif_structure.h.
    int refused = ac_heif_check_structure(data, size, max_pixels, result);
    if (refused != AC_OK) return refused;
    *context = heif_context_alloc();
    if (*context == NULL) {
        result->code = AC_NO_MEMORY;
        snprintf(result->message, sizeof result->message, "out of memory");
        return AC_NO_MEMORY;
    }
    struct heif_error error = heif_context_read_from_memory_without_copy(*context, data, size, NULL);
    if (error.code != heif_error_Ok) return ac_heif_fail(result, error, "not a readable HEIC");
    error = heif_context_get_primary_image_handle(*context, handle);
    if (error.code != heif_error_Ok) return ac_heif_fail(result, error, "the HEIC has no primary image");
    int width = heif_image_handle_get_width(*handle), height = heif_image_handle_get_height(*handle);
    result->source_width = width;
    result->source_height = height;
    result->channels = heif_image_handle_has_alpha_channel(*handle) ? 4 : 3;
    if (width <= 0 || height <= 0) {
        result->code = AC_CORRUPT;
        snprintf(result->message, sizeof result->message, "the HEIC has no pixels");
        return AC_CORRUPT;
    }
    if ((uint64_t)width * (uint64_t)height > max_pixels) {
        result->code = AC_TOO_LARGE;
        snprintf(result->message, sizeof result->message, "the image is %dx%d, over the limit of %llu pixels",
                 width, height, (unsigned long long)max_pixels);
        return AC_TOO_LARGE;
    }
    return AC_OK;
}

static void ac_heif_close(struct heif_context *context, struct heif_image_handle *handle) {
    if (handle != NULL) heif_image_handle_release(handle);
    if (context != NULL) heif_context_free(context);
}

int ac_heif_probe(const uint8_t *data, size_t size, ac_result *result) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    memset(result, 0, sizeof *result);
    int code = ac_heif_open(data, size, UINT64_MAX, &context, &handle, result);
    result->width = result->source_width;
    result->height = result->source_height;
    ac_heif_close(context, handle);
    return code;
}

int ac_heif_decode_into(const uint8_t *data, size_t size, uint64_t max_pixels,
                        uint8_t *target, size_t capacity, ac_result *result) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    struct heif_image *image = NULL;
    memset(result, 0, sizeof *result);
    int code = ac_heif_open(data, size, max_pixels, &context, &handle, result);
    if (code != AC_OK) {
        ac_heif_close(context, handle);
        return code;
    }
    int channels = result->channels;
    size_t row = (size_t)result->source_width * (size_t)channels;
    if (target == NULL || (uint64_t)row * (uint64_t)result->source_height > (uint64_t)capacity) {
        result->code = AC_NO_MEMORY;
        snprintf(result->message, sizeof result->message, "the buffer does not fit a %dx%d image",
                 result->source_width, result->source_height);
        ac_heif_close(context, handle);
        return AC_NO_MEMORY;
    }
    // Strict: invalid input is an error, not a decoding warning on a picture made anyway.
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        result->code = AC_NO_MEMORY;
        snprintf(result->message, sizeof result->message, "out of memory");
        ac_heif_close(context, handle);
        return AC_NO_MEMORY;
    }
    options->strict_decoding = 1;
    // HDR (PQ or HLG transfer): decoded at its own depth and tone-mapped to 8-bit sRGB here (the
    // primary image only: an HDR gain map is an auxiliary image, never applied). Any other
    // depth libheif brings to 8 bits; colour is converted afterwards, like every format's.
    int hdr_transfer = 0, hdr_primaries = 0;
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_handle_get_luma_bits_per_pixel(handle) > 8
        && heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok && nclx != NULL) {
        if (nclx->transfer_characteristics == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ
            || nclx->transfer_characteristics == heif_transfer_characteristic_ITU_R_BT_2100_0_HLG) {
            hdr_transfer = nclx->transfer_characteristics;
            hdr_primaries = nclx->color_primaries;
        }
    }
    if (nclx != NULL) heif_nclx_color_profile_free(nclx);
    enum heif_chroma chroma = channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
    if (hdr_transfer != 0) chroma = channels == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options);
    heif_decoding_options_free(options);
    if (error.code != heif_error_Ok) {
        // The error's message belongs to the context: copy it out before closing.
        ac_heif_fail(result, error, "the HEIC could not be decoded");
        ac_heif_close(context, handle);
        return result->code;
    }
    // libheif decodes into its own image (HEVC → YCbCr → interleaved RGB); its rows are copied
    // once, straight into the caller's buffer.
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int width = heif_image_get_width(image, heif_channel_interleaved);
    int height = heif_image_get_height(image, heif_channel_interleaved);
    if (plane == NULL || width != result->source_width || height != result->source_height || (size_t)stride < row) {
        result->code = AC_CORRUPT;
        snprintf(result->message, sizeof result->message, "the HEIC decoded to %dx%d, its header says %dx%d",
                 width, height, result->source_width, result->source_height);
        heif_image_release(image);
        ac_heif_close(context, handle);
        return AC_CORRUPT;
    }
    if (hdr_transfer != 0) {
        int bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
        if ((size_t)stride < (size_t)width * (size_t)channels * 2 || bits <= 8 || bits > 16) {
            result->code = AC_CORRUPT;
            snprintf(result->message, sizeof result->message, "the HDR HEIC decoded to an unexpected layout");
            heif_image_release(image);
            ac_heif_close(context, handle);
            return AC_CORRUPT;
        }
        ac_hdr_to_srgb(plane, (size_t)stride, width, height, channels, bits, hdr_transfer, hdr_primaries, target);
        result->tone_mapped = 1;
        result->color_done = 1;
    } else {
        for (int y = 0; y < height; y++) memcpy(target + row * (size_t)y, plane + (size_t)stride * (size_t)y, row);
    }
    result->width = width;
    result->height = height;
    heif_image_release(image);
    ac_heif_close(context, handle);
    return AC_OK;
}

static struct heif_error ac_heif_collect(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    uint8_t **buffer = ((uint8_t ***)userdata)[0];
    size_t *length = ((size_t **)userdata)[1];
    uint8_t *grown = realloc(*buffer, *length + size);
    struct heif_error error = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    if (grown == NULL) {
        error.code = heif_error_Memory_allocation_error;
        error.message = "out of memory";
        return error;
    }
    memcpy(grown + *length, data, size);
    *buffer = grown;
    *length += size;
    return error;
}

int ac_heif_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int orientation,
                   uint8_t **out, size_t *out_size, ac_result *result) {
    memset(result, 0, sizeof *result);
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        result->code = AC_UNSUPPORTED;
        snprintf(result->message, sizeof result->message, "HEIC encoding takes RGB or RGBA pixels");
        return AC_UNSUPPORTED;
    }
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    if (orientation >= 1 && orientation <= 8) options->image_orientation = (enum heif_orientation)orientation;
    // Tagged sRGB: an nclx 'colr' box (BT.709 primaries, sRGB transfer, full range), which libheif
    // 1.15 leaves out unless asked; no ICC, no other metadata.
    struct heif_color_profile_nclx *srgb = heif_nclx_color_profile_alloc();
    options->macOS_compatibility_workaround_no_nclx_profile = 0;
    struct heif_error error = heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder);
    if (error.code != heif_error_Ok) goto fail;
    heif_encoder_set_lossy_quality(encoder, quality);
    error = heif_image_create(width, height, heif_colorspace_RGB,
                              channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image);
    if (error.code != heif_error_Ok) goto fail;
    error = heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
    if (error.code != heif_error_Ok) goto fail;
    if (srgb != NULL) {
        srgb->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
        srgb->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
        srgb->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
        srgb->full_range_flag = 1;
        heif_image_set_nclx_color_profile(image, srgb);
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) {
        memcpy(plane + (size_t)stride * (size_t)y, pixels + (size_t)width * (size_t)channels * (size_t)y,
               (size_t)width * (size_t)channels);
    }
    error = heif_context_encode_image(context, image, encoder, options, NULL);
    if (error.code != heif_error_Ok) goto fail;
    struct heif_writer writer = {1, ac_heif_collect};
    void *sink[2] = {out, out_size};
    error = heif_context_write(context, &writer, sink);
    if (error.code != heif_error_Ok) goto fail;
    heif_encoding_options_free(options);
    heif_nclx_color_profile_free(srgb);
    heif_image_release(image);
    heif_encoder_release(encoder);
    heif_context_free(context);
    return AC_OK;
fail:
    ac_heif_fail(result, error, "HEIC encoding failed");  // before the context owning the message goes
    free(*out);
    *out = NULL;
    *out_size = 0;
    heif_encoding_options_free(options);
    heif_nclx_color_profile_free(srgb);
    if (image != NULL) heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    heif_context_free(context);
    return result->code;
}

int ac_heif_color(const uint8_t *data, size_t size, ac_color_source *source) {
    memset(source, 0, sizeof *source);
    struct heif_context *context;
    struct heif_image_handle *handle;
    ac_result result;
    memset(&result, 0, sizeof result);
    if (ac_heif_open(data, size, UINT64_MAX, &context, &handle, &result) != AC_OK) {
        ac_heif_close(context, handle);
        return AC_OK;  // the decode says what is wrong with the file
    }
    // An ICC profile ('prof' or 'rICC') wins over nclx; a file may carry both.
    size_t icc_size = heif_image_handle_get_raw_color_profile_size(handle);
    if (icc_size > 0) {
        if (icc_size > (8u << 20) || (source->icc = malloc(icc_size)) == NULL
            || heif_image_handle_get_raw_color_profile(handle, source->icc).code != heif_error_Ok) {
            free(source->icc);
            source->icc = NULL;
            source->broken = 1;
            snprintf(source->reason, sizeof source->reason, "the HEIC's colour profile cannot be read; the image was read as sRGB");
        } else {
            source->icc_size = icc_size;
        }
    }
    // libheif may allocate the profile and still answer an error: free it either way.
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok && nclx != NULL) {
        source->nclx_primaries = nclx->color_primaries;
        source->nclx_transfer = nclx->transfer_characteristics;
    }
    if (nclx != NULL) heif_nclx_color_profile_free(nclx);
    ac_heif_close(context, handle);
    return AC_OK;
}
