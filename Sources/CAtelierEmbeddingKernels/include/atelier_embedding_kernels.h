// The inner loops of the MiniLM forward pass: linear layers on weights packed once at load
// (AVX-512, chosen at run time) or on OpenBLAS, and the small per-token operations around them.
#ifndef ATELIER_EMBEDDING_KERNELS_H
#define ATELIER_EMBEDDING_KERNELS_H

#include <stddef.h>

// 1 when this CPU (and OS) runs the packed AVX-512 kernels; 0 means use aek_linear_blas.
int aek_packed_supported(void);

// Floats needed to pack a [outputs, inputs] weight with its bias (panels of 32 outputs, zero padded).
size_t aek_packed_count(int inputs, int outputs);

// Packs `weight` ([outputs, inputs], row-major as PyTorch stores it) and `bias` into `packed`.
void aek_pack(const float *weight, const float *bias, int inputs, int outputs, float *packed);

// y[rows, outputs] = x[rows, inputs] · Wᵀ + b (+ residual[rows, outputs]) (then exact-erf GELU
// when gelu ≠ 0), split across the pool's threads. Needs aek_packed_supported().
void aek_linear_packed(const float *x, int rows, int inputs, const float *packed, int outputs,
                       const float *residual, int gelu, float *y);

// The same product on OpenBLAS with the plain weight ([outputs, inputs]) and bias.
void aek_linear_blas(const float *x, int rows, int inputs, const float *weight, const float *bias, int outputs,
                     const float *residual, int gelu, float *y);

// Threads the kernels (and OpenBLAS) may use, process-wide; 0 means every core.
void aek_set_threads(int threads);

// The threads one call uses now (at least 1).
int aek_threads(void);

// LayerNorm of each of `rows` rows of `width` floats, in place.
void aek_layer_norm(float *x, int rows, int width, const float *gamma, const float *beta, float epsilon);

// Self-attention of a padded batch: `qkv` is [batch × length, 3 × hidden] (query, key, value
// side by side, each split into `heads` heads of contiguous columns); for every text and head,
// softmax(Q Kᵀ / √head_size over the text's first lengths[text] keys) V goes to `context`
// [batch × length, hidden].
void aek_attention(const float *qkv, int batch, int length, const int *lengths, int hidden, int heads, float *context);

#endif
