// atelier_kernels — the few inner loops Swift does not vectorise well, in plain C that clang
// turns into SIMD code (everything else in the image pipeline is Swift), and the malloc tuning
// the image workers want.
#ifndef ATELIER_KERNELS_H
#define ATELIER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

// target[i] = source[i] rounded and clamped to 0…255. (Swift checks the range of every
// Float → UInt8 conversion, which keeps such loops scalar.)
void ak_floats_to_bytes(const float *source, uint8_t *target, size_t count);

// target[i] = (float)source[i].
void ak_bytes_to_floats(const uint8_t *source, float *target, size_t count);

// glibc malloc tuning (mallopt): large blocks from the heap below `mmap_threshold` bytes,
// the heap trimmed only beyond `trim_threshold` free bytes, grown by `top_pad`. Returns 0 when
// the C library does not support it.
int ak_tune_malloc(int mmap_threshold, int trim_threshold, int top_pad);

#endif
