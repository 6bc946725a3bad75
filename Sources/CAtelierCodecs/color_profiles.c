// ICC profiles and nclx: the sRGB profile the encoders embed and sRGB look-alikes, the profile a
// source declares (its ICC bytes, or one built from HEIF nclx primaries and transfer), and, for RGB
// sources, ac_color_prepare (a cached transform: color_cache.c; our kernel for matrix-shapers:
// color_shaper.c; lcms2's transform for the rest) and ac_color_apply. Shared: color_internal.h.
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <lcms2.h>

#include "color_budget.h"
#include "color_internal.h"

void ac_color_source_free(ac_color_source *source) {
    if (source == NULL) return;
    free(source->icc);
    source->icc = NULL;
    source->icc_size = 0;
}

// ---- the sRGB target -------------------------------------------------------------------------

static pthread_once_t ac_srgb_once = PTHREAD_ONCE_INIT;
static uint8_t *ac_srgb_bytes = NULL;
static cmsUInt32Number ac_srgb_size = 0;
static cmsCIEXYZ ac_srgb_colorants[3];

static void ac_srgb_build(void) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (srgb == NULL) return;
    cmsUInt32Number size = 0;
    if (cmsSaveProfileToMem(srgb, NULL, &size) && size > 0) {
        uint8_t *bytes = malloc(size);
        if (bytes != NULL && cmsSaveProfileToMem(srgb, bytes, &size)) {
            ac_srgb_bytes = bytes;
            ac_srgb_size = size;
        } else {
            free(bytes);
        }
    }
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int i = 0; i < 3; i++) {
        const cmsCIEXYZ *xyz = cmsReadTag(srgb, tags[i]);
        if (xyz != NULL) ac_srgb_colorants[i] = *xyz;
    }
    cmsCloseProfile(srgb);
}

const uint8_t *ac_srgb_icc(size_t *size) {
    pthread_once(&ac_srgb_once, ac_srgb_build);
    *size = ac_srgb_size;
    return ac_srgb_bytes;
}

const cmsCIEXYZ *ac_srgb_colorants_d50(void) {
    pthread_once(&ac_srgb_once, ac_srgb_build);
    return ac_srgb_colorants;
}

static double ac_srgb_curve(double v) {
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

// sRGB in all but its bytes: an RGB matrix-shaper whose colorants match lcms2's sRGB (within
// 0.002, s15Fixed16 rounding and other makers' adaptation) and whose curves follow sRGB's within
// half an 8-bit step.
static int ac_profile_is_srgb(cmsHPROFILE profile) {
    pthread_once(&ac_srgb_once, ac_srgb_build);
    if (cmsGetColorSpace(profile) != cmsSigRgbData || !cmsIsMatrixShaper(profile)) return 0;
    const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int i = 0; i < 3; i++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, colorants[i]);
        if (xyz == NULL) return 0;
        if (fabs(xyz->X - ac_srgb_colorants[i].X) > 0.002 || fabs(xyz->Y - ac_srgb_colorants[i].Y) > 0.002
            || fabs(xyz->Z - ac_srgb_colorants[i].Z) > 0.002) return 0;
        const cmsToneCurve *curve = cmsReadTag(profile, curves[i]);
        if (curve == NULL) return 0;
        for (int step = 0; step <= 32; step++) {
            double v = step / 32.0;
            if (fabs(cmsEvalToneCurveFloat(curve, (cmsFloat32Number)v) - ac_srgb_curve(v)) > 0.5 / 255.0) return 0;
        }
    }
    return 1;
}

int ac_icc_is_srgb(const uint8_t *icc, size_t size) {
    if (icc == NULL || size < 132) return 0;
    ac_lcms_budget_begin(size);
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    int srgb = profile != NULL && ac_profile_is_srgb(profile);
    if (profile != NULL) cmsCloseProfile(profile);
    ac_lcms_budget_end(NULL);
    return srgb;
}

// ---- profiles from HEIF nclx (ITU-T H.273) ---------------------------------------------------

// Primaries (x, y of red, green, blue) and white point; 0 when the code is not one we know.
int ac_nclx_primaries(int code, cmsCIExyYTRIPLE *primaries, cmsCIExyY *white) {
    const double d65[2] = {0.3127, 0.3290};
    double p[6];
    const double *w = d65;
    static const double dci_white[2] = {0.314, 0.351};
    switch (code) {
    case 1: { const double v[6] = {0.640, 0.330, 0.300, 0.600, 0.150, 0.060}; memcpy(p, v, sizeof p); break; }   // BT.709 / sRGB
    case 5: { const double v[6] = {0.640, 0.330, 0.290, 0.600, 0.150, 0.060}; memcpy(p, v, sizeof p); break; }   // BT.601 625
    case 6: case 7: { const double v[6] = {0.630, 0.340, 0.310, 0.595, 0.155, 0.070}; memcpy(p, v, sizeof p); break; }  // BT.601 525
    case 9: { const double v[6] = {0.708, 0.292, 0.170, 0.797, 0.131, 0.046}; memcpy(p, v, sizeof p); break; }   // BT.2020
    case 11: { const double v[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060}; memcpy(p, v, sizeof p); w = dci_white; break; }  // DCI-P3
    case 12: { const double v[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060}; memcpy(p, v, sizeof p); break; }  // Display P3
    default: return 0;
    }
    *primaries = (cmsCIExyYTRIPLE){{p[0], p[1], 1}, {p[2], p[3], 1}, {p[4], p[5], 1}};
    *white = (cmsCIExyY){w[0], w[1], 1};
    return 1;
}

static cmsToneCurve *ac_nclx_curve(int code) {
    switch (code) {
    case 2: case 13: {  // unspecified (read as sRGB, as browsers do) · sRGB
        const cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
        return cmsBuildParametricToneCurve(NULL, 4, srgb);
    }
    case 1: case 6: case 14: case 15: {  // BT.709 / BT.601 / BT.2020: the inverse of their OETF
        const cmsFloat64Number bt709[5] = {1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081};
        return cmsBuildParametricToneCurve(NULL, 4, bt709);
    }
    case 4: return cmsBuildGamma(NULL, 2.2);
    case 5: return cmsBuildGamma(NULL, 2.8);
    case 8: return cmsBuildGamma(NULL, 1.0);
    default: return NULL;
    }
}

// ---- RGB sources -----------------------------------------------------------------------------

void ac_note(char *note, const char *text) {
    if (note != NULL) snprintf(note, 160, "%s", text);
}

static void ac_describe(cmsHPROFILE profile, char *description) {
    if (description == NULL) return;
    description[0] = '\0';
    wchar_t wide[64];
    // Sizes in bytes, the count written including the terminating zero.
    cmsUInt32Number length = cmsGetProfileInfo(profile, cmsInfoDescription, "en", "US", wide, sizeof wide) / sizeof wide[0];
    size_t out = 0;
    for (cmsUInt32Number i = 0; i < length && i < 64 && wide[i] != 0 && out < 63; i++) {
        description[out++] = (wide[i] >= 32 && wide[i] < 127) ? (char)wide[i] : '?';
    }
    description[out] = '\0';
}

// lcms2 prefers a profile's floating-point tables (D2Bx, `mpet`) to its integer ones and, to build
// a transform, runs each of its 33³ grid points through every stage of them: CPU in proportion to
// the tables' size, far past a decode's for the 8 MiB a carrier allows (BENCHMARKS.md, "Fuzzing:
// cost per KB"). Photos do not carry them: they are dropped, and lcms2 reads the A2Bx tables or
// the matrix and curves instead, as every ICC v2 reader does.
void ac_drop_float_tables(cmsHPROFILE profile) {
    static const cmsTagSignature tables[4] = {cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag, cmsSigDToB3Tag};
    for (int i = 0; i < 4; i++) {
        if (cmsIsTag(profile, tables[i])) cmsWriteTag(profile, tables[i], NULL);  // NULL: delete the tag
    }
}

// The profile a source declares, or NULL (untagged, or unusable: `note` says why).
static cmsHPROFILE ac_source_profile(const ac_color_source *source, char *note, char *description) {
    if (source->icc != NULL && source->icc_size > 0) {
        cmsHPROFILE profile = cmsOpenProfileFromMem(source->icc, (cmsUInt32Number)source->icc_size);
        if (profile == NULL) {
            ac_note(note, "the embedded colour profile is damaged; the image was read as sRGB");
            return NULL;
        }
        ac_describe(profile, description);
        ac_drop_float_tables(profile);
        if (cmsGetColorSpace(profile) != cmsSigRgbData) {
            // A gray profile on a gray JPEG (decoded as R = G = B) is read as sRGB gray.
            if (cmsGetColorSpace(profile) != cmsSigGrayData) {
                ac_note(note, "the embedded colour profile is not an RGB profile; the image was read as sRGB");
            }
            cmsCloseProfile(profile);
            return NULL;
        }
        return profile;
    }
    if (source->nclx_primaries != 0 || source->nclx_transfer != 0) {
        int primaries = source->nclx_primaries == 2 ? 1 : source->nclx_primaries;  // 2: unspecified
        if (description != NULL) snprintf(description, 64, "nclx %d/%d", source->nclx_primaries, source->nclx_transfer);
        if ((primaries == 1 || primaries == 0) && (source->nclx_transfer == 13 || source->nclx_transfer == 2)) return NULL;
        if (source->nclx_transfer == 16 || source->nclx_transfer == 18) return NULL;  // HDR: the decoder tone-maps
        cmsCIExyYTRIPLE xyY;
        cmsCIExyY white;
        cmsToneCurve *curve = ac_nclx_curve(source->nclx_transfer);
        if (!ac_nclx_primaries(primaries == 0 ? 1 : primaries, &xyY, &white) || curve == NULL) {
            if (curve != NULL) cmsFreeToneCurve(curve);
            ac_note(note, "the image's colour description (nclx) names primaries or a transfer we do not know; read as sRGB");
            return NULL;
        }
        cmsToneCurve *curves[3] = {curve, curve, curve};
        cmsHPROFILE profile = cmsCreateRGBProfile(&white, &xyY, curves);
        cmsFreeToneCurve(curve);
        return profile;
    }
    return NULL;
}

static _Thread_local size_t ac_last_profile_cost[2];

void ac_color_last_profile_cost(size_t *given, size_t *refused) {
    if (given != NULL) *given = ac_last_profile_cost[0];
    if (refused != NULL) *refused = ac_last_profile_cost[1];
}

static ac_color_transform *ac_color_prepare_budgeted(const ac_color_source *source, int channels, char *note,
                                                     char *description);

// The profile is the image's, so whatever lcms2 allocates for it is budgeted (color_budget.c).
ac_color_transform *ac_color_prepare(const ac_color_source *source, int channels, char *note, char *description) {
    ac_lcms_budget_begin(source->icc != NULL ? source->icc_size : 0);
    ac_color_transform *transform = ac_color_prepare_budgeted(source, channels, note, description);
    ac_last_profile_cost[0] = ac_lcms_budget_end(&ac_last_profile_cost[1]);
    return transform;
}

static ac_color_transform *ac_color_prepare_budgeted(const ac_color_source *source, int channels, char *note,
                                                     char *description) {
    if (note != NULL) note[0] = '\0';
    if (description != NULL) description[0] = '\0';
    if (source->broken) {
        ac_note(note, source->reason[0] != '\0' ? source->reason : "the embedded colour profile is damaged; the image was read as sRGB");
        return NULL;
    }
    if (channels != 3 && channels != 4) return NULL;
    // The cache key: the profile's bytes, or the nclx codes.
    uint8_t nclx_key[8];
    const uint8_t *key = source->icc;
    size_t key_size = source->icc_size;
    if (key == NULL || key_size == 0) {
        memcpy(nclx_key, &source->nclx_primaries, 4);
        memcpy(nclx_key + 4, &source->nclx_transfer, 4);
        key = nclx_key;
        key_size = sizeof nclx_key;
    }
    uint64_t hash = ac_fnv1a(key, key_size);
    cmsHPROFILE profile = ac_source_profile(source, note, description);
    if (profile == NULL) return NULL;
    ac_color_transform *found = ac_cache_find(key, key_size, channels, hash);
    if (found != NULL) {
        cmsCloseProfile(profile);
        return found;
    }
    if (ac_profile_is_srgb(profile)) {
        cmsCloseProfile(profile);
        return NULL;
    }
    ac_matrix_shaper *shaper = ac_matrix_shaper_for(profile);
    if (shaper != NULL) {
        cmsCloseProfile(profile);
        ac_color_transform *wrapped = calloc(1, sizeof *wrapped);
        if (wrapped == NULL) {
            free(shaper);
            return NULL;
        }
        wrapped->shaper = shaper;
        wrapped->channels = channels;
        wrapped->references = 1;
        ac_cache_keep(key, key_size, channels, hash, wrapped);
        return wrapped;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsUInt32Number format = channels == 4 ? TYPE_RGBA_8 : TYPE_RGB_8;
    // NOCACHE: one transform is shared by every thread transforming rows of an image.
    cmsHTRANSFORM transform = srgb == NULL ? NULL
        : cmsCreateTransform(profile, format, srgb, format, INTENT_PERCEPTUAL,
                             cmsFLAGS_NOCACHE | (channels == 4 ? cmsFLAGS_COPY_ALPHA : 0));
    cmsCloseProfile(profile);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (transform == NULL) {
        ac_note(note, "the embedded colour profile cannot be used as a source; the image was read as sRGB");
        return NULL;
    }
    ac_color_transform *wrapped = ac_wrap(transform, 0);
    if (wrapped != NULL) ac_cache_keep(key, key_size, channels, hash, wrapped);
    return wrapped;
}

void ac_color_apply(const ac_color_transform *transform, uint8_t *pixels, int width, int rows) {
    if (transform == NULL || width <= 0 || rows <= 0) return;
    if (transform->shaper != NULL) {
        ac_matrix_shaper_apply(transform->shaper, transform->channels, pixels, (size_t)width * (size_t)rows);
        return;
    }
    if (transform->transform == NULL) return;
    cmsUInt32Number format = cmsGetTransformInputFormat(transform->transform);
    size_t stride = (size_t)width * T_BYTES(format) * (T_CHANNELS(format) + T_EXTRA(format));
    cmsDoTransformLineStride(transform->transform, pixels, pixels, (cmsUInt32Number)width, (cmsUInt32Number)rows,
                             (cmsUInt32Number)stride, (cmsUInt32Number)stride, 0, 0);
}
