// The transform cache: transforms to sRGB by profile (or nclx codes), eight per process, and the
// references that keep a transform alive while its users and the cache hold it (ac_color_release,
// ac_color_cache_clear). Shared: color_internal.h.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <lcms2.h>

#include "color_internal.h"

// ---- the cache -------------------------------------------------------------------------------

// Transforms by profile, for the process. Eight slots; when they are full a new profile takes the
// slot of the least recently used entry that was only ever used once, or, when every entry has
// been used again, of the least recently used one. So a profile in steady use (an iPhone's
// Display P3) stays however many one-off profiles pass through, and profiles that stopped coming
// make room for new ones instead of holding their slots for ever.
#define AC_CACHE_SIZE 8

typedef struct {
    uint64_t hash;
    size_t size;
    int kind;             // channels (3, 4), or 10 + inverted for CMYK
    uint8_t *bytes;       // the key's bytes, compared whole on a hash match
    ac_color_transform *transform;
    uint64_t used;        // the cache's clock when last found or kept
    uint64_t uses;        // how often it was found, + 1
} ac_cache_entry;

static pthread_mutex_t ac_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static ac_cache_entry ac_cache[AC_CACHE_SIZE];
static uint64_t ac_cache_clock = 0;

uint64_t ac_fnv1a(const uint8_t *bytes, size_t size) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < size; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    return hash;
}

static ac_cache_entry *ac_cache_entry_for(const uint8_t *key, size_t size, int kind, uint64_t hash) {
    for (int i = 0; i < AC_CACHE_SIZE; i++) {
        ac_cache_entry *entry = &ac_cache[i];
        if (entry->transform != NULL && entry->hash == hash && entry->size == size && entry->kind == kind
            && memcmp(entry->bytes, key, size) == 0) return entry;
    }
    return NULL;
}

// The cached transform for the key, with a reference for the caller (ac_color_release), or NULL.
ac_color_transform *ac_cache_find(const uint8_t *key, size_t size, int kind, uint64_t hash) {
    ac_color_transform *found = NULL;
    pthread_mutex_lock(&ac_cache_lock);
    ac_cache_entry *entry = ac_cache_entry_for(key, size, kind, hash);
    if (entry != NULL) {
        entry->used = ++ac_cache_clock;
        entry->uses++;
        entry->transform->references++;
        found = entry->transform;
    }
    pthread_mutex_unlock(&ac_cache_lock);
    return found;
}

static void ac_transform_free(ac_color_transform *transform) {
    if (transform->transform != NULL) cmsDeleteTransform(transform->transform);
    free(transform->shaper);
    free(transform);
}

// Keeps `transform` (just built, its one reference the caller's) in the cache, which takes a
// reference of its own, in place of the entry the policy above gives up. Another thread may have
// kept the same profile meanwhile: then this one stays the caller's alone.
void ac_cache_keep(const uint8_t *key, size_t size, int kind, uint64_t hash, ac_color_transform *transform) {
    uint8_t *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) return;
    memcpy(copy, key, size);
    ac_cache_entry evicted = {0};
    pthread_mutex_lock(&ac_cache_lock);
    if (ac_cache_entry_for(key, size, kind, hash) == NULL) {
        int slot = -1, once = -1;
        for (int i = 0; i < AC_CACHE_SIZE; i++) {
            ac_cache_entry *entry = &ac_cache[i];
            if (entry->transform == NULL) { slot = i; break; }
            if (entry->uses == 1 && (once < 0 || entry->used < ac_cache[once].used)) once = i;
            if (slot < 0 || entry->used < ac_cache[slot].used) slot = i;
        }
        if (ac_cache[slot].transform != NULL && once >= 0) slot = once;
        evicted = ac_cache[slot];
        transform->references++;
        ac_cache[slot] = (ac_cache_entry){hash, size, kind, copy, transform, ++ac_cache_clock, 1};
        copy = NULL;
        if (evicted.transform != NULL && --evicted.transform->references > 0) evicted.transform = NULL;
    }
    pthread_mutex_unlock(&ac_cache_lock);
    free(copy);
    free(evicted.bytes);
    if (evicted.transform != NULL) ac_transform_free(evicted.transform);
}

void ac_color_cache_clear(void) {
    ac_cache_entry evicted[AC_CACHE_SIZE];
    pthread_mutex_lock(&ac_cache_lock);
    for (int i = 0; i < AC_CACHE_SIZE; i++) {
        evicted[i] = ac_cache[i];
        if (evicted[i].transform != NULL && --evicted[i].transform->references > 0) evicted[i].transform = NULL;
        ac_cache[i] = (ac_cache_entry){0};
    }
    pthread_mutex_unlock(&ac_cache_lock);
    for (int i = 0; i < AC_CACHE_SIZE; i++) {
        free(evicted[i].bytes);
        if (evicted[i].transform != NULL) ac_transform_free(evicted[i].transform);
    }
}

ac_color_transform *ac_wrap(cmsHTRANSFORM transform, int inverted) {
    ac_color_transform *wrapped = calloc(1, sizeof *wrapped);
    if (wrapped == NULL) {
        if (transform != NULL) cmsDeleteTransform(transform);
        return NULL;
    }
    wrapped->transform = transform;
    wrapped->inverted = inverted;
    wrapped->references = 1;
    return wrapped;
}

void ac_color_release(ac_color_transform *transform) {
    if (transform == NULL) return;
    pthread_mutex_lock(&ac_cache_lock);
    int last = --transform->references == 0;
    pthread_mutex_unlock(&ac_cache_lock);
    if (last) ac_transform_free(transform);
}
