#include "atelier_kernels.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void ak_floats_to_bytes(const float *restrict source, uint8_t *restrict target, size_t count) {
    for (size_t i = 0; i < count; i++) {
        float v = source[i] + 0.5f;
        v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
        target[i] = (uint8_t)(int)v;
    }
}

void ak_bytes_to_floats(const uint8_t *restrict source, float *restrict target, size_t count) {
    for (size_t i = 0; i < count; i++) target[i] = (float)source[i];
}

int ak_tune_malloc(int mmap_threshold, int trim_threshold, int top_pad) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) && mallopt(M_TRIM_THRESHOLD, trim_threshold)
        && mallopt(M_TOP_PAD, top_pad);
#else
    (void)mmap_threshold; (void)trim_threshold; (void)top_pad;
    return 0;
#endif
}
