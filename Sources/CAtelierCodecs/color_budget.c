// lcms2's memory, budgeted per untrusted profile.
//
// lcms2 (2.14) trusts the counts inside a profile: a 1 KB profile whose description (`mluc`)
// declares 16 million records makes cmsReadTag allocate and zero 200 MB before it finds the
// records are not there — 100 ms and 200 MB of one API process for a 1 KB upload, found by
// ./ops/fuzz's cost check (Tests/Fuzz/regressions/webp/slow-icc-record-count). `curv`, `mft2`,
// `ncl2` and the other counted tags do the same up to lcms2's own 512 MB cap.
//
// Everything lcms2 allocates goes through the functions below (a memory plug-in registered on
// the global context before main runs). While a thread works on a profile from an image, they
// count what lcms2 asks for and refuse past a budget linear in the profile's size; lcms2 then
// reports the tag or profile as unreadable and color_profiles.c or color_cmyk.c falls back as
// for a damaged profile.
// Legitimate profiles stay far inside it: measured, opening, describing and building a transform
// to sRGB asks for 0.16–0.44 MB in all for RGB and gray profiles of 0.4–13 KB, 1.1 MB for a
// 187 KB CMYK profile (Ghostscript's default_cmyk.icc).
#include <stdint.h>
#include <stdlib.h>
#include <lcms2.h>
#include <lcms2_plugin.h>

#include "color_budget.h"

#define AC_LCMS_BUDGET_BASE ((size_t)4 << 20)
#define AC_LCMS_BUDGET_PER_BYTE 16
// Outside a budget (the sRGB profile, the installed CMYK profile): lcms2's own cap.
#define AC_LCMS_MAX_ALLOCATION ((size_t)512 << 20)

static _Thread_local struct {
    int active;
    size_t limit, asked, refused;
} ac_budget;

static int ac_budget_allows(size_t size) {
    if (size > AC_LCMS_MAX_ALLOCATION) return 0;
    if (!ac_budget.active) return 1;
    // A refused allocation is not counted: the tag it was for is lost, the rest may still fit.
    if (size > ac_budget.limit - ac_budget.asked) {
        ac_budget.refused += size;
        return 0;
    }
    ac_budget.asked += size;
    return 1;
}

static void *ac_lcms_malloc(cmsContext context, cmsUInt32Number size) {
    (void)context;
    return ac_budget_allows(size) ? malloc(size) : NULL;
}

static void ac_lcms_free(cmsContext context, void *pointer) {
    (void)context;
    free(pointer);
}

static void *ac_lcms_realloc(cmsContext context, void *pointer, cmsUInt32Number size) {
    (void)context;
    return ac_budget_allows(size) ? realloc(pointer, size) : NULL;
}

static cmsPluginMemHandler ac_lcms_memory = {
    .base = {cmsPluginMagicNumber, 2000, cmsPluginMemHandlerSig, NULL},
    .MallocPtr = ac_lcms_malloc,
    .FreePtr = ac_lcms_free,
    .ReallocPtr = ac_lcms_realloc,
};

// Before main: lcms2's function pointers are replaced before any thread can call it. What lcms2
// allocated before (nothing, or with its defaults: malloc) is freed by free as before.
__attribute__((constructor)) static void ac_lcms_install(void) {
    cmsPlugin(&ac_lcms_memory);
}

void ac_lcms_budget_begin(size_t icc_size) {
    size_t limit = AC_LCMS_BUDGET_BASE;
    limit += icc_size > (SIZE_MAX - limit) / AC_LCMS_BUDGET_PER_BYTE ? SIZE_MAX - limit : icc_size * AC_LCMS_BUDGET_PER_BYTE;
    ac_budget.active = 1;
    ac_budget.limit = limit;
    ac_budget.asked = 0;
    ac_budget.refused = 0;
}

size_t ac_lcms_budget_end(size_t *refused) {
    size_t asked = ac_budget.asked;
    if (refused != NULL) *refused = ac_budget.refused;
    ac_budget.active = 0;
    return asked;
}
