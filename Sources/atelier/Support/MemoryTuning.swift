import CAtelierKernels

/// glibc returns every large block (≥ 32 MB at most) to the kernel when it is freed, so each
/// decoded photo (a 13 MP image is 40 MB) is mapped anew and page-faulted in, zeroed by the
/// kernel, page by page — on this machine that costs as much as decoding it. Keeping large
/// blocks in the heap and not trimming it lets a worker reuse the memory of the last image: a
/// faster decode and watercolor kernel in `atelier bench image` (docs/benchmarks/images.md, "Image pipeline
/// and styles", what made the difference). The price: a process keeps its peak heap resident.
/// `ATELIER_MALLOC_TUNING=false` turns it off.
enum MemoryTuning {
    static func apply(environment: [String: String]) {
        guard environment["ATELIER_MALLOC_TUNING"]?.lowercased() != "false" else { return }
        // Blocks below 512 MB from the heap; memory given back only beyond 1 GB free at the
        // top; the heap grown in 64 MB steps.
        _ = ak_tune_malloc(512 << 20, 1 << 30, 64 << 20)
    }
}
