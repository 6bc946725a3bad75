// CBLAS from Debian's libopenblas-dev (cblas.h resolves to OpenBLAS through alternatives).
#include <cblas.h>
