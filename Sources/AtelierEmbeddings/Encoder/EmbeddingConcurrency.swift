import CAtelierEmbeddingKernels

/// How many cores one embedding call may use (default: all). The kernels' small thread pool and
/// OpenBLAS (portable path) both follow it. Benchmarks set it to compare one core with all.
package enum EmbeddingConcurrency {
    /// 0 (or less) means every core.
    package static func limit(to cores: Int) {
        aek_set_threads(Int32(max(0, cores)))
    }
}
