// The portable path: OpenBLAS's sgemm (it picks its kernel for the CPU at run time), then bias,
// residual and GELU in one pass. Used where the packed AVX-512 kernels cannot run.
#include "atelier_embedding_kernels.h"
#include "gelu.h"

#include <cblas.h>
#include <string.h>

#include "thread_pool.h"

void aek_set_threads(int threads) {
    aek_pool_set_threads(threads < 1 ? 0 : threads);
    openblas_set_num_threads(aek_pool_threads());
}

int aek_threads(void) { return aek_pool_threads(); }

void aek_linear_blas(const float *x, int rows, int inputs, const float *weight, const float *bias, int outputs,
                     const float *residual, int gelu, float *y) {
    for (int r = 0; r < rows; r++) memcpy(y + (size_t)r * outputs, bias, sizeof(float) * (size_t)outputs);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, outputs, inputs, 1.0f, x, inputs, weight, inputs,
                1.0f, y, outputs);
    const size_t count = (size_t)rows * outputs;
    if (residual) for (size_t i = 0; i < count; i++) y[i] += residual[i];
    if (gelu) for (size_t i = 0; i < count; i++) y[i] = aek_gelu(y[i]);
}
