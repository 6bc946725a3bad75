// The small operations between the linear layers: LayerNorm and attention. Written so the
// compiler vectorises them: no libm calls and no serial float reductions in inner loops.
#include "atelier_embedding_kernels.h"
#include "thread_pool.h"

#include <math.h>

// Parts of ≥ ~250k flops each (a few microseconds), at most one per thread.
static int parts_for(double flops, int items) {
    int parts = aek_pool_threads();
    if (parts > items) parts = items;
    if (parts > flops / 250e3) parts = (int)(flops / 250e3);
    return parts < 1 ? 1 : parts;
}

// Sum in 16 independent lanes (a float reduction the compiler vectorises without -ffast-math).
static inline float lane_sum(const float *a, int count) {
    float lanes[16] = {0};
    int i = 0;
    for (; i + 16 <= count; i += 16)
        for (int l = 0; l < 16; l++) lanes[l] += a[i + l];
    float total = 0.0f;
    for (int l = 0; l < 16; l++) total += lanes[l];
    for (; i < count; i++) total += a[i];
    return total;
}

// Compiled for AVX-512, AVX2 and baseline x86-64; the loader picks one for the CPU.
#if defined(__x86_64__) && defined(__linux__)
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VECTOR_CLONES
#endif

VECTOR_CLONES
static void normalise_rows(float *x, int rows, int width, const float *gamma, const float *beta, float epsilon) {
    float centred[width];
    for (int r = 0; r < rows; r++) {
        float *row = x + (size_t)r * width;
        const float mean = lane_sum(row, width) / (float)width;
        for (int k = 0; k < width; k++) { const float c = row[k] - mean; centred[k] = c * c; }
        const float inverse = 1.0f / sqrtf(lane_sum(centred, width) / (float)width + epsilon);
        for (int k = 0; k < width; k++) row[k] = (row[k] - mean) * inverse * gamma[k] + beta[k];
    }
}

struct norm_job { float *x; const float *gamma, *beta; int rows, width; float epsilon; };

static void norm_part(void *context, int part, int parts) {
    const struct norm_job *job = context;
    const int begin = job->rows * part / parts, end = job->rows * (part + 1) / parts;
    normalise_rows(job->x + (size_t)begin * job->width, end - begin, job->width, job->gamma, job->beta, job->epsilon);
}

void aek_layer_norm(float *x, int rows, int width, const float *gamma, const float *beta, float epsilon) {
    struct norm_job job = {x, gamma, beta, rows, width, epsilon};
    aek_parallel(parts_for(8.0 * rows * width, rows), norm_part, &job);
}

// e^x for x ≤ 0 (scores minus their maximum) without libm, so the loop over a row vectorises:
// 2^n · e^r with n = round(x / ln 2), |r| ≤ ln2/2, e^r by its degree-6 Taylor polynomial
// (relative error < 2e-7); below -87 the result is 0 (as expf's would be, to float precision).
static inline float exp_nonpositive(float x) {
    x = x < -87.0f ? -87.0f : x;
    const float n = __builtin_rintf(x * 1.44269504088896341f);
    const float r = (x - n * 0.693145751953125f) - n * 1.428606765330187e-06f;
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    union { float f; int i; } scale = {.i = ((int)n + 127) << 23};
    return p * scale.f;
}

enum { LANES = 16 };

// One head of one text. Keys are first copied transposed and scaled into `keys_t`
// (head_size × `padded` columns, zero beyond `valid`), so a query row's scores are head_size
// multiply-adds across 16 keys at once, accumulated in registers; the weighted sum of values
// likewise runs 16 columns at a time. `w` holds `padded` floats.
VECTOR_CLONES
static void attention_head(const float *q, const float *k, const float *v, int stride, int head_size, int length,
                           int valid, float scale, float *out, int out_stride, float *w, float *keys_t) {
    const int padded = (valid + LANES - 1) / LANES * LANES;
    for (int j = 0; j < head_size; j++) {
        float *column = keys_t + (size_t)j * padded;
        for (int key = 0; key < valid; key++) column[key] = k[(size_t)key * stride + j] * scale;
        for (int key = valid; key < padded; key++) column[key] = 0.0f;
    }
    for (int row = 0; row < length; row++) {
        const float *query = q + (size_t)row * stride;
        for (int block = 0; block < padded; block += LANES) {
            float scores[LANES] = {0};
            for (int j = 0; j < head_size; j++) {
                const float qj = query[j];
                const float *column = keys_t + (size_t)j * padded + block;
                for (int l = 0; l < LANES; l++) scores[l] += qj * column[l];
            }
            for (int l = 0; l < LANES; l++) w[block + l] = scores[l];
        }
        float peak = -INFINITY;
        for (int key = 0; key < valid; key++) peak = w[key] > peak ? w[key] : peak;
        for (int key = 0; key < valid; key++) w[key] = exp_nonpositive(w[key] - peak);
        const float inverse = 1.0f / lane_sum(w, valid);
        float *target = out + (size_t)row * out_stride;
        int j0 = 0;
        for (; j0 + LANES <= head_size; j0 += LANES) {
            float sum[LANES] = {0};
            for (int key = 0; key < valid; key++) {
                const float weight = w[key];
                const float *value = v + (size_t)key * stride + j0;
                for (int l = 0; l < LANES; l++) sum[l] += weight * value[l];
            }
            for (int l = 0; l < LANES; l++) target[j0 + l] = sum[l] * inverse;
        }
        for (; j0 < head_size; j0++) {
            float sum = 0.0f;
            for (int key = 0; key < valid; key++) sum += w[key] * v[(size_t)key * stride + j0];
            target[j0] = sum * inverse;
        }
    }
}

struct attention_job { const float *qkv; const int *lengths; float *context; int batch, length, hidden, heads; };

static void attention_part(void *context, int part, int parts) {
    const struct attention_job *job = context;
    const int pairs = job->batch * job->heads, h = job->hidden, l = job->length, d = h / job->heads;
    const float scale = 1.0f / sqrtf((float)d);
    const int padded = (l + LANES - 1) / LANES * LANES;
    float w[padded], keys_t[padded * d];
    for (int pair = pairs * part / parts; pair < pairs * (part + 1) / parts; pair++) {
        const int item = pair / job->heads, head = pair % job->heads;
        const float *q = job->qkv + (size_t)item * l * 3 * h + (size_t)head * d;
        attention_head(q, q + h, q + 2 * h, 3 * h, d, l, job->lengths[item], scale,
                       job->context + (size_t)item * l * h + (size_t)head * d, h, w, keys_t);
    }
}

void aek_attention(const float *qkv, int batch, int length, const int *lengths, int hidden, int heads, float *context) {
    struct attention_job job = {qkv, lengths, context, batch, length, hidden, heads};
    aek_parallel(parts_for(4.0 * batch * length * length * hidden, batch * heads), attention_part, &job);
}
