// Linear layers for small and large batches alike. Weights are packed once at load into panels
// of 32 outputs ([inputs][32] each, bias after all panels), so the inner loop streams one panel
// contiguously while 8 input rows stay in registers as broadcasts: 16 AVX-512 accumulators,
// no per-call packing (OpenBLAS re-packs the weight on every call, which dominated at batch 1).
// Measured against OpenBLAS 0.3.21 on the shapes of MiniLM: see BENCHMARKS.md.
#include "atelier_embedding_kernels.h"
#include "gelu.h"
#include "thread_pool.h"

#include <string.h>

enum { PANEL = 32, ROWS = 8 };

static int panels_for(int outputs) { return (outputs + PANEL - 1) / PANEL; }

size_t aek_packed_count(int inputs, int outputs) {
    return (size_t)panels_for(outputs) * PANEL * ((size_t)inputs + 1);
}

void aek_pack(const float *weight, const float *bias, int inputs, int outputs, float *packed) {
    const int panels = panels_for(outputs);
    float *packed_bias = packed + (size_t)panels * inputs * PANEL;
    for (int p = 0; p < panels; p++) {
        float *panel = packed + (size_t)p * inputs * PANEL;
        for (int k = 0; k < inputs; k++)
            for (int j = 0; j < PANEL; j++) {
                const int o = p * PANEL + j;
                panel[(size_t)k * PANEL + j] = o < outputs ? weight[(size_t)o * inputs + k] : 0.0f;
            }
        for (int j = 0; j < PANEL; j++) {
            const int o = p * PANEL + j;
            packed_bias[p * PANEL + j] = o < outputs ? bias[o] : 0.0f;
        }
    }
}

static int tiles_for(int rows, int outputs) {
    return panels_for(outputs) * ((rows + ROWS - 1) / ROWS);
}

#if defined(__x86_64__)
#include <immintrin.h>

int aek_packed_supported(void) {
    return __builtin_cpu_supports("avx512f") ? 1 : 0;
}

// One tile: `rows` (≤ 8, a compile-time constant after inlining) input rows × one panel.
// `columns` < 32 only in the last panel of a width that is not a multiple of 32.
__attribute__((target("avx512f"), always_inline))
static inline void tile(const int rows, const float *x, int inputs, const float *panel, const float *bias,
                        const float *residual, int gelu, float *y, int ldy, int columns) {
    __m512 c[ROWS][2];
    const __m512 b0 = _mm512_loadu_ps(bias), b1 = _mm512_loadu_ps(bias + 16);
    for (int r = 0; r < rows; r++) { c[r][0] = b0; c[r][1] = b1; }
    for (int k = 0; k < inputs; k++) {
        const __m512 w0 = _mm512_loadu_ps(panel + (size_t)k * PANEL), w1 = _mm512_loadu_ps(panel + (size_t)k * PANEL + 16);
        for (int r = 0; r < rows; r++) {
            const __m512 a = _mm512_set1_ps(x[(size_t)r * inputs + k]);
            c[r][0] = _mm512_fmadd_ps(a, w0, c[r][0]);
            c[r][1] = _mm512_fmadd_ps(a, w1, c[r][1]);
        }
    }
    const __mmask16 m0 = columns >= 16 ? 0xFFFF : (__mmask16)((1u << columns) - 1);
    const __mmask16 m1 = columns >= 32 ? 0xFFFF : (columns <= 16 ? 0 : (__mmask16)((1u << (columns - 16)) - 1));
    for (int r = 0; r < rows; r++) {
        float *out = y + (size_t)r * ldy;
        if (residual) {
            const float *add = residual + (size_t)r * ldy;
            c[r][0] = _mm512_add_ps(c[r][0], _mm512_maskz_loadu_ps(m0, add));
            c[r][1] = _mm512_add_ps(c[r][1], _mm512_maskz_loadu_ps(m1, add + 16));
        }
        _mm512_mask_storeu_ps(out, m0, c[r][0]);
        _mm512_mask_storeu_ps(out + 16, m1, c[r][1]);
        // GELU on the row just stored (still in L1); this loop vectorises with AVX-512 too.
        if (gelu) for (int j = 0; j < columns; j++) out[j] = aek_gelu(out[j]);
    }
}

#define TILE(n) \
    __attribute__((target("avx512f"))) static void tile##n(const float *x, int inputs, const float *panel, const float *bias, \
        const float *residual, int gelu, float *y, int ldy, int columns) { tile(n, x, inputs, panel, bias, residual, gelu, y, ldy, columns); }
TILE(1) TILE(2) TILE(3) TILE(4) TILE(5) TILE(6) TILE(7) TILE(8)
typedef void (*tile_function)(const float *, int, const float *, const float *, const float *, int, float *, int, int);
static const tile_function tiles[ROWS + 1] = {0, tile1, tile2, tile3, tile4, tile5, tile6, tile7, tile8};

static void linear_tiles(const float *x, int rows, int inputs, const float *packed, int outputs,
                         const float *residual, int gelu, float *y, int tile_begin, int tile_end) {
    const int blocks = (rows + ROWS - 1) / ROWS, panels = panels_for(outputs);
    const float *bias = packed + (size_t)panels * inputs * PANEL;
    // Consecutive tiles share a panel, so a thread's range streams each panel once.
    for (int t = tile_begin; t < tile_end; t++) {
        const int p = t / blocks, r = (t % blocks) * ROWS;
        const int count = rows - r < ROWS ? rows - r : ROWS;
        const int columns = outputs - p * PANEL < PANEL ? outputs - p * PANEL : PANEL;
        const size_t offset = (size_t)r * outputs + (size_t)p * PANEL;
        tiles[count](x + (size_t)r * inputs, inputs, packed + (size_t)p * inputs * PANEL, bias + p * PANEL,
                     residual ? residual + offset : NULL, gelu, y + offset, outputs, columns);
    }
}

struct linear_job {
    const float *x, *packed, *residual;
    float *y;
    int rows, inputs, outputs, gelu, tiles;
};

static void linear_part(void *context, int part, int parts) {
    const struct linear_job *job = context;
    linear_tiles(job->x, job->rows, job->inputs, job->packed, job->outputs, job->residual, job->gelu, job->y,
                 job->tiles * part / parts, job->tiles * (part + 1) / parts);
}

void aek_linear_packed(const float *x, int rows, int inputs, const float *packed, int outputs,
                       const float *residual, int gelu, float *y) {
    struct linear_job job = {x, packed, residual, y, rows, inputs, outputs, gelu, tiles_for(rows, outputs)};
    // At least ~1 MFLOP per thread (microseconds of work, more than a helper's wake-up costs):
    // smaller products run on the caller alone.
    const double flops = 2.0 * rows * inputs * outputs;
    int parts = aek_pool_threads();
    if (parts > job.tiles) parts = job.tiles;
    if (parts > flops / 1e6) parts = (int)(flops / 1e6);
    aek_parallel(parts < 1 ? 1 : parts, linear_part, &job);
}

#else

int aek_packed_supported(void) { return 0; }

void aek_linear_packed(const float *x, int rows, int inputs, const float *packed, int outputs,
                       const float *residual, int gelu, float *y) {
    (void)x; (void)rows; (void)inputs; (void)packed; (void)outputs; (void)residual; (void)gelu; (void)y;
}

#endif
