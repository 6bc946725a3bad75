// Exact-erf GELU without libm, so loops over it vectorise: erf as Eigen's rational
// approximation on [-4, 4] (|error| < 4e-7 against double erf; erf is ±1 in float outside).
#ifndef ATELIER_GELU_H
#define ATELIER_GELU_H

static inline float aek_gelu(float v) {
    float x = v * 0.70710678118654752f;
    x = x < -4.0f ? -4.0f : (x > 4.0f ? 4.0f : x);
    const float x2 = x * x;
    float p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
    p = x2 * p + -2.10102402082508e-06f;
    p = x2 * p + -5.69250639462346e-05f;
    p = x2 * p + -7.34990630326855e-04f;
    p = x2 * p + -2.95459980854025e-03f;
    p = x2 * p + -1.60960333262415e-02f;
    p *= x;
    float q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
    q = x2 * q + -1.68282697438203e-03f;
    q = x2 * q + -7.37332916720468e-03f;
    q = x2 * q + -1.42647390514189e-02f;
    return 0.5f * v * (1.0f + p / q);
}

#endif
