// cost_check — what each input costs the code a fuzz target drives, per KB of work it may
// legitimately cause. ./ops/fuzz links it with a target's harness (LLVMFuzzerTestOneInput) and the
// code under test, optimised and without sanitizers, as production runs it, and gives it every
// input of the target's corpus, seeds and regressions.
//
// Every parser must be linear in its input, and a decoder in its input plus the picture it
// produces (bounded by the pixel limit: a 1 KB header may honestly ask for 50 MP of pixels). So
// an input's units are max(its size, 1 KB) + the pixels its header declares when the probe
// accepts it (`probe_pixels`, for the codec targets; 0 for the others), and its cost is the least
// CPU time of three runs (all threads: libheif decodes on several) per 1,024 units. A parser that
// walks its input more than once per byte — the HEIC extent walk that stepped through 1,024
// copies of the file — shows up as a cost per KB hundreds of times the corpus's usual.
//
//   cost_check LIMIT_US_PER_KB FILE…   prints the slowest inputs per KB; exit 1 above the limit
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
// The pixels the input's header declares (0 if refused or not an image): the harness's own probe.
uint64_t probe_pixels(const uint8_t *data, size_t size) __attribute__((weak));
// The codec targets' colour transform cache, emptied before every run: an input's profile costs
// its transform each time, as a profile never seen before would (otherwise the second and third
// runs find it cached and the least of three hides it).
void ac_color_cache_clear(void) __attribute__((weak));

typedef struct {
    const char *path;
    size_t size;
    uint64_t pixels;
    double seconds, per_kb;  // microseconds per 1,024 units
} measured;

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int slower(const void *a, const void *b) {
    double x = ((const measured *)a)->per_kb, y = ((const measured *)b)->per_kb;
    return x < y ? 1 : x > y ? -1 : 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: cost_check LIMIT_US_PER_KB FILE…\n");
        return 2;
    }
    double limit = atof(argv[1]);
    int count = argc - 2;
    measured *all = calloc(count > 0 ? (size_t)count : 1, sizeof *all);
    if (all == NULL) return 2;
    for (int i = 0; i < count; i++) {
        const char *path = argv[i + 2];
        FILE *file = fopen(path, "rb");
        if (file == NULL) { perror(path); return 2; }
        fseek(file, 0, SEEK_END);
        long length = ftell(file);
        fseek(file, 0, SEEK_SET);
        uint8_t *data = malloc(length > 0 ? (size_t)length : 1);
        if (data == NULL || (length > 0 && fread(data, 1, (size_t)length, file) != (size_t)length)) { perror(path); return 2; }
        fclose(file);
        size_t size = (size_t)length;
        double best = -1;
        for (int run = 0; run < 3; run++) {
            if (ac_color_cache_clear != NULL) ac_color_cache_clear();
            double started = cpu_seconds();
            LLVMFuzzerTestOneInput(data, size);
            double took = cpu_seconds() - started;
            if (best < 0 || took < best) best = took;
        }
        uint64_t pixels = probe_pixels != NULL ? probe_pixels(data, size) : 0;
        double units = (double)(size > 1024 ? size : 1024) + (double)pixels;
        all[i] = (measured){path, size, pixels, best, best * 1e6 / (units / 1024.0)};
        free(data);
    }
    qsort(all, (size_t)count, sizeof *all, slower);
    printf("%d inputs; the slowest per KB of input (+ declared pixels):\n", count);
    for (int i = 0; i < count && i < 5; i++) {
        const char *name = strrchr(all[i].path, '/');
        printf("  %10.1f µs/KB  %9.3f ms  %8zu bytes  %10llu px  %s\n", all[i].per_kb, all[i].seconds * 1e3, all[i].size,
               (unsigned long long)all[i].pixels, name != NULL ? name + 1 : all[i].path);
    }
    int over = count > 0 && all[0].per_kb > limit;
    if (over) printf("over the limit of %.0f µs/KB: %s\n", limit, all[0].path);
    free(all);
    return over ? 1 : 0;
}
