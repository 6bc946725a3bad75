// AVIF encoding with libavif (Debian's libavif-dev: libaom's AV1 encoder behind it), for photo
// variants. Encode only: uploads stay JPEG, PNG, HEIC and WebP.
#include "atelier_codecs.h"

#include <avif/avif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(ac_result *result, int code, const char *message) {
    result->code = code;
    snprintf(result->message, sizeof result->message, "%s", message);
    return code;
}

int ac_avif_encode(const uint8_t *pixels, int width, int height, int channels, int quality, int speed,
                   uint8_t **out, size_t *out_size, ac_result *result) {
    memset(result, 0, sizeof *result);
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384 || (channels != 3 && channels != 4)) {
        return fail(result, AC_UNSUPPORTED, "AVIF encoding takes RGB or RGBA pixels up to 16384 px a side");
    }
    avifImage *image = avifImageCreate((uint32_t)width, (uint32_t)height, 8, AVIF_PIXEL_FORMAT_YUV420);
    if (image == NULL) return fail(result, AC_NO_MEMORY, "out of memory");
    // Tagged sRGB (nclx): BT.709 primaries, the sRGB curve, BT.601 matrix, full range.
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
    image->yuvRange = AVIF_RANGE_FULL;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.pixels = (uint8_t *)pixels;
    rgb.rowBytes = (uint32_t)(width * channels);
    if (avifImageRGBToYUV(image, &rgb) != AVIF_RESULT_OK) {
        avifImageDestroy(image);
        return fail(result, AC_NO_MEMORY, "AVIF colour conversion failed");
    }
    avifEncoder *encoder = avifEncoderCreate();
    if (encoder == NULL) {
        avifImageDestroy(image);
        return fail(result, AC_NO_MEMORY, "out of memory");
    }
    // quality 0…100 onto AV1's quantizer 63…0; one thread (the caller runs encodes side by side).
    int q = quality < 0 ? 0 : (quality > 100 ? 100 : quality);
    int quantizer = (int)((100 - q) * AVIF_QUANTIZER_WORST_QUALITY / 100.0 + 0.5);
    encoder->maxThreads = 1;
    encoder->speed = speed < AVIF_SPEED_SLOWEST ? AVIF_SPEED_SLOWEST : (speed > AVIF_SPEED_FASTEST ? AVIF_SPEED_FASTEST : speed);
    encoder->minQuantizer = quantizer;
    encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = quantizer;
    encoder->maxQuantizerAlpha = quantizer;
    avifRWData output = AVIF_DATA_EMPTY;
    avifResult written = avifEncoderWrite(encoder, image, &output);
    avifEncoderDestroy(encoder);
    avifImageDestroy(image);
    if (written != AVIF_RESULT_OK || output.data == NULL) {
        avifRWDataFree(&output);
        return fail(result, AC_NO_MEMORY, "AVIF encoding failed");
    }
    // Copy into malloc'd memory so every output is released the same way (ac_free).
    *out = malloc(output.size);
    if (*out == NULL) {
        avifRWDataFree(&output);
        return fail(result, AC_NO_MEMORY, "out of memory");
    }
    memcpy(*out, output.data, output.size);
    *out_size = output.size;
    avifRWDataFree(&output);
    result->width = width;
    result->height = height;
    return AC_OK;
}
