#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <lcms2.h>
#include <libheif/heif.h>

#include "atelier_color_fixtures.h"

void acf_free(void *pointer) { free(pointer); }

uint8_t *acf_rgb_profile(int primaries, const char *description, size_t *size) {
    cmsCIExyY white = {0.3127, 0.3290, 1};
    cmsCIExyYTRIPLE xyY;
    if (primaries == 12) xyY = (cmsCIExyYTRIPLE){{0.680, 0.320, 1}, {0.265, 0.690, 1}, {0.150, 0.060, 1}};
    else if (primaries == 9) xyY = (cmsCIExyYTRIPLE){{0.708, 0.292, 1}, {0.170, 0.797, 1}, {0.131, 0.046, 1}};
    else xyY = (cmsCIExyYTRIPLE){{0.640, 0.330, 1}, {0.300, 0.600, 1}, {0.150, 0.060, 1}};
    const cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &xyY, curves);
    cmsFreeToneCurve(curve);
    cmsMLU *mlu = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(mlu, "en", "US", description);
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
    cmsMLUfree(mlu);
    cmsUInt32Number length = 0;
    cmsSaveProfileToMem(profile, NULL, &length);
    uint8_t *bytes = malloc(length);
    cmsSaveProfileToMem(profile, bytes, &length);
    cmsCloseProfile(profile);
    *size = length;
    return bytes;
}

uint8_t *acf_rgb_profile_with_float_tables(int primaries, const char *description, int pairs, size_t *size) {
    size_t plain_size = 0;
    uint8_t *plain = acf_rgb_profile(primaries, description, &plain_size);
    cmsHPROFILE profile = cmsOpenProfileFromMem(plain, (cmsUInt32Number)plain_size);
    free(plain);
    if (profile == NULL) return NULL;
    cmsSetProfileVersion(profile, 4.3);
    cmsPipeline *tables = cmsPipelineAlloc(NULL, 3, 3);
    const cmsFloat64Number swap[9] = {0, 0, 1, 0, 1, 0, 1, 0, 0};
    for (int i = 0; i < pairs; i++) {
        // y = x below 0, on 0…1 and above 1 (ICC type 6 segments: (a·x + b)^γ + c).
        cmsCurveSegment segments[3] = {
            {.x0 = -1e22f, .x1 = 0, .Type = 6, .Params = {1, 1, 0, 0}},
            {.x0 = 0, .x1 = 1, .Type = 6, .Params = {1, 1, 0, 0}},
            {.x0 = 1, .x1 = 1e22f, .Type = 6, .Params = {1, 1, 0, 0}},
        };
        cmsToneCurve *curve = cmsBuildSegmentedToneCurve(NULL, 3, segments);
        cmsToneCurve *curves[3] = {curve, curve, curve};
        cmsPipelineInsertStage(tables, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, curves));
        cmsFreeToneCurve(curve);
        cmsPipelineInsertStage(tables, cmsAT_END, cmsStageAllocMatrix(NULL, 3, 3, swap, NULL));
    }
    cmsWriteTag(profile, cmsSigDToB0Tag, tables);
    cmsPipelineFree(tables);
    cmsUInt32Number length = 0;
    uint8_t *bytes = NULL;
    if (cmsSaveProfileToMem(profile, NULL, &length) && length > 0 && (bytes = malloc(length)) != NULL) {
        cmsSaveProfileToMem(profile, bytes, &length);
    }
    cmsCloseProfile(profile);
    *size = length;
    return bytes;
}

int acf_reference_lab(const uint8_t *icc, size_t size, int cmyk, const uint8_t *pixels, int count, double *lab) {
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    if (source == NULL) return 0;
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab_profile = cmsCreateLab4Profile(NULL);
    cmsHTRANSFORM to_srgb = cmsCreateTransform(source, cmyk ? TYPE_CMYK_DBL : TYPE_RGB_DBL, srgb, TYPE_RGB_DBL,
                                               INTENT_PERCEPTUAL, cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
    cmsHTRANSFORM to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab_profile, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                              cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
    int ok = to_srgb != NULL && to_lab != NULL;
    for (int i = 0; ok && i < count; i++) {
        int channels = cmyk ? 4 : 3;
        double in[4], rgb[3];
        for (int c = 0; c < channels; c++) in[c] = pixels[i * channels + c] / 255.0 * (cmyk ? 100.0 : 1.0);
        cmsDoTransform(to_srgb, in, rgb, 1);
        for (int c = 0; c < 3; c++) rgb[c] = rgb[c] < 0 ? 0 : rgb[c] > 1 ? 1 : rgb[c];
        cmsDoTransform(to_lab, rgb, lab + i * 3, 1);
    }
    if (to_srgb != NULL) cmsDeleteTransform(to_srgb);
    if (to_lab != NULL) cmsDeleteTransform(to_lab);
    cmsCloseProfile(source);
    cmsCloseProfile(srgb);
    cmsCloseProfile(lab_profile);
    return ok;
}

int acf_lcms_8bit(const uint8_t *icc, size_t size, uint8_t *pixels, int count) {
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size), srgb = cmsCreate_sRGBProfile();
    cmsHTRANSFORM transform = source == NULL ? NULL
        : cmsCreateTransform(source, TYPE_RGB_8, srgb, TYPE_RGB_8, INTENT_PERCEPTUAL, 0);
    if (transform != NULL) {
        cmsDoTransform(transform, pixels, pixels, (cmsUInt32Number)count);
        cmsDeleteTransform(transform);
    }
    if (source != NULL) cmsCloseProfile(source);
    cmsCloseProfile(srgb);
    return transform != NULL;
}

void acf_srgb_lab(const uint8_t *rgb, int count, double *lab) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab_profile = cmsCreateLab4Profile(NULL);
    cmsHTRANSFORM to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab_profile, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                              cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
    for (int i = 0; i < count; i++) {
        double in[3] = {rgb[i * 3] / 255.0, rgb[i * 3 + 1] / 255.0, rgb[i * 3 + 2] / 255.0};
        cmsDoTransform(to_lab, in, lab + i * 3, 1);
    }
    cmsDeleteTransform(to_lab);
    cmsCloseProfile(srgb);
    cmsCloseProfile(lab_profile);
}

static struct heif_error acf_collect(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    uint8_t **buffer = ((uint8_t ***)userdata)[0];
    size_t *length = ((size_t **)userdata)[1];
    *buffer = realloc(*buffer, *length + size);
    memcpy(*buffer + *length, data, size);
    *length += size;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    return ok;
}

int acf_heif_encode(const uint16_t *pixels, int width, int height, int bit_depth, int primaries, int transfer, int orientation,
                    const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    options->macOS_compatibility_workaround_no_nclx_profile = 0;
    options->save_two_colr_boxes_when_ICC_and_nclx_available = 1;
    if (orientation >= 1 && orientation <= 8) options->image_orientation = (enum heif_orientation)orientation;
    int ok = heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder).code == heif_error_Ok;
    if (ok) heif_encoder_set_lossy_quality(encoder, 95);
    enum heif_chroma chroma = bit_depth > 8 ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB;
    ok = ok && heif_image_create(width, height, heif_colorspace_RGB, chroma, &image).code == heif_error_Ok;
    ok = ok && heif_image_add_plane(image, heif_channel_interleaved, width, height, bit_depth).code == heif_error_Ok;
    if (ok) {
        int stride = 0;
        uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width * 3; x++) {
                uint16_t v = pixels[(size_t)y * (size_t)width * 3 + (size_t)x];
                if (bit_depth > 8) {
                    plane[(size_t)y * (size_t)stride + (size_t)x * 2] = (uint8_t)(v & 0xFF);
                    plane[(size_t)y * (size_t)stride + (size_t)x * 2 + 1] = (uint8_t)(v >> 8);
                } else {
                    plane[(size_t)y * (size_t)stride + (size_t)x] = (uint8_t)v;
                }
            }
        }
        if (primaries != 0 || transfer != 0) {
            struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
            nclx->color_primaries = (enum heif_color_primaries)primaries;
            nclx->transfer_characteristics = (enum heif_transfer_characteristics)transfer;
            nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
            nclx->full_range_flag = 1;
            heif_image_set_nclx_color_profile(image, nclx);
            heif_nclx_color_profile_free(nclx);
        }
        if (icc != NULL) heif_image_set_raw_color_profile(image, "prof", icc, icc_size);
        ok = heif_context_encode_image(context, image, encoder, options, NULL).code == heif_error_Ok;
    }
    if (ok) {
        struct heif_writer writer = {1, acf_collect};
        void *sink[2] = {out, out_size};
        ok = heif_context_write(context, &writer, sink).code == heif_error_Ok;
    }
    heif_encoding_options_free(options);
    if (image != NULL) heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    heif_context_free(context);
    return ok;
}

int acf_jpeg_encode_cmyk(const uint8_t *cmyk, int width, int height, int ycck, const uint8_t *icc, size_t icc_size,
                         uint8_t **out, size_t *out_size) {
    struct jpeg_compress_struct encoder;
    struct jpeg_error_mgr error;
    unsigned char *destination = NULL;
    unsigned long length = 0;
    encoder.err = jpeg_std_error(&error);
    jpeg_create_compress(&encoder);
    jpeg_mem_dest(&encoder, &destination, &length);
    encoder.image_width = (JDIMENSION)width;
    encoder.image_height = (JDIMENSION)height;
    encoder.input_components = 4;
    encoder.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&encoder);
    jpeg_set_colorspace(&encoder, ycck ? JCS_YCCK : JCS_CMYK);  // writes Adobe's APP14
    jpeg_set_quality(&encoder, 98, TRUE);
    jpeg_start_compress(&encoder, TRUE);
    if (icc != NULL) jpeg_write_icc_profile(&encoder, icc, (unsigned int)icc_size);
    while (encoder.next_scanline < encoder.image_height) {
        JSAMPROW row = (JSAMPROW)(cmyk + (size_t)encoder.next_scanline * (size_t)width * 4);
        jpeg_write_scanlines(&encoder, &row, 1);
    }
    jpeg_finish_compress(&encoder);
    jpeg_destroy_compress(&encoder);
    *out = destination;
    *out_size = length;
    return 1;
}
