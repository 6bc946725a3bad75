// JPEG through libjpeg-turbo: probe (size from the header, and a check that the file is not cut
// short), decode into the caller's buffer (scaled by eighths in the DCT, CMYK converted to sRGB
// through lcms2, a cap on progressive scans) and encode (optimised Huffman tables, sRGB tagged).
// libjpeg reports fatal errors by calling error_exit, which must not return: here it longjmps back
// to the call in progress, which frees what it holds and reports the library's message.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

#include "atelier_codecs.h"
#include "atelier_color.h"

// libjpeg reports fatal errors through error_exit, which must not return: jump back to the
// call in progress, carrying the library's message.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int code;
    char message[JMSG_LENGTH_MAX];
} ac_jpeg_error;

typedef struct {
    struct jpeg_progress_mgr base;
    int max_scans;
} ac_jpeg_progress;

static void ac_set(ac_result *result, int code, const char *message) {
    result->code = code;
    snprintf(result->message, sizeof result->message, "%s", message);
}

static void ac_jpeg_error_exit(j_common_ptr info) {
    ac_jpeg_error *error = (ac_jpeg_error *)info->err;
    (*info->err->format_message)(info, error->message);
    longjmp(error->jump, 1);
}

static void ac_jpeg_quiet(j_common_ptr info, int level) {
    (void)info;
    (void)level;  // the encoder has no warnings worth stopping for
}

// libjpeg reports a truncated or damaged file as a warning (emit_message at level -1) and goes
// on, filling what is missing with grey. Those warnings end the decode here: a file cut short
// is damaged, not a picture. Kept as warnings: stray bytes between segments (complete photos
// from some cameras have them; the pixel data is intact), an inconsistent progression (scans
// repeated or out of order: nothing is missing, and a file made of repeats meets the scan
// limit instead) and metadata oddities (JFIF revision, Adobe transform code, ICC markers).
static void ac_jpeg_strict(j_common_ptr info, int level) {
    if (level >= 0) return;  // trace messages
    switch (info->err->msg_code) {
    case JWRN_JPEG_EOF:          // premature end of JPEG file
    case JWRN_HIT_MARKER:        // premature end of data segment
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:       // a restart marker lost
    case JWRN_NOT_SEQUENTIAL: {
        ac_jpeg_error *error = (ac_jpeg_error *)info->err;
        (*info->err->format_message)(info, error->message);
        error->code = AC_CORRUPT;
        longjmp(error->jump, 1);
    }
    default:
        return;
    }
}

// A JPEG ends with EOI (FF D9). In entropy-coded data every FF is followed by 00 or a restart
// marker, so an FF D9 after the first scan starts can only be a marker: without one, the file
// was cut short (bytes after EOI — phone trailers, motion photos — are allowed). `from` is where
// the first scan's data begins. One memchr pass over the rest of the file.
static int ac_jpeg_has_eoi(const uint8_t *from, const uint8_t *end) {
    while (from < end) {
        const uint8_t *ff = memchr(from, 0xFF, (size_t)(end - from));
        if (ff == NULL || ff + 1 >= end) return 0;
        if (ff[1] == 0xD9) return 1;
        from = ff + 1;
    }
    return 0;
}

static int ac_jpeg_check_eoi(j_decompress_ptr decoder, const uint8_t *data, size_t size, ac_result *result) {
    const uint8_t *from = decoder->src != NULL ? decoder->src->next_input_byte : data;
    if (from < data || from > data + size) from = data;
    if (ac_jpeg_has_eoi(from, data + size)) return AC_OK;
    ac_set(result, AC_CORRUPT, "the JPEG has no end of image marker after its scan: it was cut short");
    return AC_CORRUPT;
}

static void ac_jpeg_progress_monitor(j_common_ptr info) {
    j_decompress_ptr decoder = (j_decompress_ptr)info;
    ac_jpeg_progress *progress = (ac_jpeg_progress *)info->progress;
    if (decoder->is_decompressor && decoder->input_scan_number > progress->max_scans) {
        ac_jpeg_error *error = (ac_jpeg_error *)info->err;
        error->code = AC_TOO_LARGE;
        snprintf(error->message, sizeof error->message, "the JPEG has more than %d progressive scans", progress->max_scans);
        longjmp(error->jump, 1);
    }
}

// The error handling every decode starts with: fatal errors and the warnings ac_jpeg_strict
// treats as damage longjmp to the caller's setjmp on `error->jump`.
static void ac_jpeg_catch(struct jpeg_decompress_struct *decoder, ac_jpeg_error *error) {
    decoder->err = jpeg_std_error(&error->base);
    error->base.error_exit = ac_jpeg_error_exit;
    error->base.emit_message = ac_jpeg_strict;
    error->code = AC_CORRUPT;
}

// Reads the header of `data` (under the caller's setjmp: a damaged header longjmps) and checks
// that the file is not cut short. Sets the source size in `result`; returns AC_OK or AC_CORRUPT,
// the decoder still to be destroyed by the caller either way.
static int ac_jpeg_open(struct jpeg_decompress_struct *decoder, const uint8_t *data, size_t size, ac_result *result) {
    jpeg_mem_src(decoder, data, (unsigned long)size);
    jpeg_read_header(decoder, TRUE);
    result->source_width = (int)decoder->image_width;
    result->source_height = (int)decoder->image_height;
    return ac_jpeg_check_eoi(decoder, data, size, result);
}

int ac_jpeg_decode_into(const uint8_t *data, size_t size, int scale_eighths, uint64_t max_pixels, int max_scans,
                        const uint8_t *cmyk_profile, size_t cmyk_profile_size,
                        uint8_t *target, size_t capacity, ac_result *result) {
    struct jpeg_decompress_struct decoder;
    ac_jpeg_error error;
    ac_jpeg_progress progress;
    // CMYK: rows decoded into `scratch`, converted into the target through `transform`. Both
    // volatile: they must survive libjpeg's longjmp to be freed.
    uint8_t *volatile scratch = NULL;
    ac_color_transform *volatile transform = NULL;
    memset(result, 0, sizeof *result);
    if (size < 4) {
        ac_set(result, AC_CORRUPT, "the JPEG is empty or truncated");
        return AC_CORRUPT;
    }

    ac_jpeg_catch(&decoder, &error);
    if (setjmp(error.jump)) {
        ac_set(result, error.code, error.message);
        jpeg_destroy_decompress(&decoder);
        free(scratch);
        ac_color_release(transform);
        return result->code;
    }
    jpeg_create_decompress(&decoder);
    progress.base.progress_monitor = ac_jpeg_progress_monitor;
    progress.max_scans = max_scans > 0 ? max_scans : 1000;
    decoder.progress = &progress.base;
    if (ac_jpeg_open(&decoder, data, size, result) != AC_OK) {
        jpeg_destroy_decompress(&decoder);
        return AC_CORRUPT;
    }
    if ((uint64_t)decoder.image_width * decoder.image_height > max_pixels) {
        snprintf(result->message, sizeof result->message, "the image is %ux%u, over the limit of %llu pixels",
                 decoder.image_width, decoder.image_height, (unsigned long long)max_pixels);
        result->code = AC_TOO_LARGE;
        jpeg_destroy_decompress(&decoder);
        return AC_TOO_LARGE;
    }
    int cmyk = decoder.jpeg_color_space == JCS_CMYK || decoder.jpeg_color_space == JCS_YCCK;
    if (cmyk) {
        // Print files: converted to sRGB through their own profile, or the standard CMYK profile
        // when they have none (or a broken one). Adobe's files store CMYK inverted.
        ac_color_source source;
        ac_jpeg_color(data, size, &source);
        transform = ac_color_prepare_cmyk(source.icc, source.icc_size, cmyk_profile, cmyk_profile_size,
                                          decoder.saw_Adobe_marker, result->note);
        if (source.broken && result->note[0] == '\0') {
            snprintf(result->note, sizeof result->note, "%s", "the embedded CMYK profile is damaged; converted with the standard CMYK profile");
        }
        ac_color_source_free(&source);
        if (transform == NULL) {
            error.code = AC_NO_MEMORY;
            snprintf(error.message, sizeof error.message, "out of memory for the CMYK conversion");
            longjmp(error.jump, 1);
        }
        result->color_done = 1;
    }
    decoder.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    decoder.scale_num = (scale_eighths >= 1 && scale_eighths <= 8) ? (unsigned)scale_eighths : 8;
    decoder.scale_denom = 8;
    decoder.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&decoder);

    size_t stride = (size_t)decoder.output_width * 3;
    if (target == NULL || stride * decoder.output_height > capacity) {
        error.code = AC_NO_MEMORY;
        snprintf(error.message, sizeof error.message, "the buffer does not fit a %ux%u image", decoder.output_width, decoder.output_height);
        longjmp(error.jump, 1);
    }
    uint8_t *output = target;
    if (cmyk && (scratch = malloc((size_t)decoder.output_width * 4 * 4)) == NULL) {
        error.code = AC_NO_MEMORY;
        snprintf(error.message, sizeof error.message, "out of memory for the CMYK conversion");
        longjmp(error.jump, 1);
    }
    while (decoder.output_scanline < decoder.output_height) {
        JSAMPROW rows[4];
        int count = 0;
        JDIMENSION first = decoder.output_scanline;
        for (; count < 4 && decoder.output_scanline + count < decoder.output_height; count++) {
            rows[count] = cmyk ? scratch + (size_t)count * decoder.output_width * 4
                               : output + (size_t)(decoder.output_scanline + count) * stride;
        }
        JDIMENSION read = jpeg_read_scanlines(&decoder, rows, (JDIMENSION)count);
        if (cmyk) {
            for (JDIMENSION r = 0; r < read; r++) {
                ac_color_apply_cmyk(transform, rows[r], output + (size_t)(first + r) * stride, (int)decoder.output_width, 1);
            }
        }
    }
    free(scratch);
    scratch = NULL;
    ac_color_release(transform);
    transform = NULL;
    result->width = (int)decoder.output_width;
    result->height = (int)decoder.output_height;
    result->channels = 3;
    jpeg_finish_decompress(&decoder);
    jpeg_destroy_decompress(&decoder);
    return AC_OK;
}

int ac_jpeg_probe(const uint8_t *data, size_t size, ac_result *result) {
    struct jpeg_decompress_struct decoder;
    ac_jpeg_error error;
    memset(result, 0, sizeof *result);
    if (size < 4) {
        ac_set(result, AC_CORRUPT, "the JPEG is empty or truncated");
        return AC_CORRUPT;
    }
    ac_jpeg_catch(&decoder, &error);
    if (setjmp(error.jump)) {
        ac_set(result, error.code, error.message);
        jpeg_destroy_decompress(&decoder);
        return result->code;
    }
    jpeg_create_decompress(&decoder);
    int opened = ac_jpeg_open(&decoder, data, size, result);
    result->width = result->source_width;
    result->height = result->source_height;
    result->channels = 3;
    jpeg_destroy_decompress(&decoder);
    if (opened != AC_OK) return AC_CORRUPT;
    return result->code;
}

int ac_jpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int progressive,
                   uint8_t **out, size_t *out_size, ac_result *result) {
    struct jpeg_compress_struct encoder;
    ac_jpeg_error error;
    // Address-taken (the library writes it through jpeg_mem_dest), so it survives the longjmp.
    unsigned char *destination = NULL;
    unsigned long length = 0;
    memset(result, 0, sizeof *result);
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 1)) {
        ac_set(result, AC_UNSUPPORTED, "JPEG encoding takes RGB or gray pixels");
        return AC_UNSUPPORTED;
    }
    encoder.err = jpeg_std_error(&error.base);
    error.base.error_exit = ac_jpeg_error_exit;
    error.base.emit_message = ac_jpeg_quiet;
    error.code = AC_CORRUPT;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&encoder);
        free(destination);
        ac_set(result, error.code, error.message);
        return result->code;
    }
    jpeg_create_compress(&encoder);
    jpeg_mem_dest(&encoder, &destination, &length);
    encoder.image_width = (JDIMENSION)width;
    encoder.image_height = (JDIMENSION)height;
    encoder.input_components = channels;
    encoder.in_color_space = channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&encoder);
    jpeg_set_quality(&encoder, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    encoder.optimize_coding = TRUE;
    if (progressive) jpeg_simple_progression(&encoder);
    jpeg_start_compress(&encoder, TRUE);
    if (channels == 3) {  // tagged sRGB (an APP2 ICC profile); gray stays untagged, which reads as sRGB gray
        size_t icc_size = 0;
        const uint8_t *icc = ac_srgb_icc(&icc_size);
        if (icc != NULL) jpeg_write_icc_profile(&encoder, icc, (unsigned int)icc_size);
    }
    size_t stride = (size_t)width * channels;
    while (encoder.next_scanline < encoder.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)encoder.next_scanline * stride);
        jpeg_write_scanlines(&encoder, &row, 1);
    }
    jpeg_finish_compress(&encoder);
    jpeg_destroy_compress(&encoder);
    *out = destination;
    *out_size = length;
    return AC_OK;
}

void ac_free(void *pointer) {
    free(pointer);
}
