// CMYK → sRGB: through the image's profile, else the installed standard CMYK profile, else an
// arithmetic conversion with no profile; transforms cached by profile (color_cache.c). Shared:
// color_internal.h.
#include <stddef.h>
#include <lcms2.h>

#include "color_budget.h"
#include "color_internal.h"

// `icc` is the image's or the installed standard one: budgeted either way (color_budget.c).
static cmsHTRANSFORM ac_cmyk_transform(const uint8_t *icc, size_t size, int inverted) {
    if (icc == NULL || size < 132) return NULL;
    ac_lcms_budget_begin(size);
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    if (profile == NULL) {
        ac_lcms_budget_end(NULL);
        return NULL;
    }
    cmsHTRANSFORM transform = NULL;
    ac_drop_float_tables(profile);
    if (cmsGetColorSpace(profile) == cmsSigCmykData) {
        cmsHPROFILE srgb = cmsCreate_sRGBProfile();
        if (srgb != NULL) {
            transform = cmsCreateTransform(profile, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, srgb, TYPE_RGB_8,
                                           INTENT_PERCEPTUAL, cmsFLAGS_NOCACHE);
            cmsCloseProfile(srgb);
        }
    }
    cmsCloseProfile(profile);
    ac_lcms_budget_end(NULL);
    return transform;
}

ac_color_transform *ac_color_prepare_cmyk(const uint8_t *icc, size_t icc_size, const uint8_t *fallback,
                                          size_t fallback_size, int inverted, char *note) {
    if (note != NULL) note[0] = '\0';
    int kind = 10 + (inverted ? 1 : 0);
    int tagged = icc != NULL && icc_size > 0;
    const uint8_t *key = tagged ? icc : fallback;
    size_t key_size = tagged ? icc_size : fallback_size;
    uint64_t hash = key != NULL ? ac_fnv1a(key, key_size) : 0;
    if (key != NULL) {
        ac_color_transform *found = ac_cache_find(key, key_size, kind, hash);
        if (found != NULL) return found;
    }
    cmsHTRANSFORM transform = tagged ? ac_cmyk_transform(icc, icc_size, inverted) : NULL;
    if (tagged && transform == NULL) {
        ac_note(note, "the embedded CMYK profile is damaged or not a CMYK profile; converted with the standard CMYK profile");
        key = fallback;
        key_size = fallback_size;
        hash = key != NULL ? ac_fnv1a(key, key_size) : 0;
        if (key != NULL) {
            ac_color_transform *found = ac_cache_find(key, key_size, kind, hash);
            if (found != NULL) return found;
        }
    }
    if (transform == NULL) transform = ac_cmyk_transform(fallback, fallback_size, inverted);
    if (transform == NULL) {
        ac_note(note, "no usable CMYK profile (none embedded, no standard one installed): converted arithmetically, colours approximate");
        return ac_wrap(NULL, inverted);
    }
    ac_color_transform *wrapped = ac_wrap(transform, inverted);
    if (wrapped != NULL && key != NULL) ac_cache_keep(key, key_size, kind, hash, wrapped);
    return wrapped;
}

void ac_color_apply_cmyk(const ac_color_transform *transform, const uint8_t *cmyk, uint8_t *rgb, int width, int rows) {
    if (transform == NULL || width <= 0 || rows <= 0) return;
    if (transform->transform != NULL) {
        cmsDoTransformLineStride(transform->transform, cmyk, rgb, (cmsUInt32Number)width, (cmsUInt32Number)rows,
                                 (cmsUInt32Number)width * 4, (cmsUInt32Number)width * 3, 0, 0);
        return;
    }
    // No profile anywhere: R = (1 − C)(1 − K), and so on.
    size_t count = (size_t)width * (size_t)rows;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = cmyk + i * 4;
        unsigned c = p[0], m = p[1], y = p[2], k = p[3];
        if (transform->inverted) {  // Adobe: 255 = no ink
            rgb[i * 3 + 0] = (uint8_t)((c * k + 127) / 255);
            rgb[i * 3 + 1] = (uint8_t)((m * k + 127) / 255);
            rgb[i * 3 + 2] = (uint8_t)((y * k + 127) / 255);
        } else {
            rgb[i * 3 + 0] = (uint8_t)(((255 - c) * (255 - k) + 127) / 255);
            rgb[i * 3 + 1] = (uint8_t)(((255 - m) * (255 - k) + 127) / 255);
            rgb[i * 3 + 2] = (uint8_t)(((255 - y) * (255 - k) + 127) / 255);
        }
    }
}
