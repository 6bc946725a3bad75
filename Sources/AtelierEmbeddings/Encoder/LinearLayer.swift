import CAtelierEmbeddingKernels

/// How the encoder multiplies matrices.
package enum MatrixKernel: String, Sendable {
    /// Weights packed once at load into 32-output panels, multiplied by our AVX-512 kernel:
    /// no per-call packing, bias/residual/GELU fused into the store (x86-64 with AVX-512).
    case packed
    /// OpenBLAS's sgemm on the weights as stored (any CPU).
    case blas

    /// `packed` where the CPU runs it, else `blas`.
    package static var preferred: MatrixKernel { aek_packed_supported() != 0 ? .packed : .blas }
}

/// One linear layer, `y = x·Wᵀ + b`, with its weights laid out for `kernel`. Owns that copy
/// (the file's mmapped tensors stay untouched); immutable after init, so shared across threads.
final class LinearLayer: @unchecked Sendable {
    let inputs: Int, outputs: Int
    let kernel: MatrixKernel
    private let storage: UnsafeMutableBufferPointer<Float>
    /// The plain bias, for the BLAS path only (the packed layout carries its own copy).
    private let bias: UnsafeMutableBufferPointer<Float>?

    /// `parts` are weights ([outputs_i, inputs] each) and biases stacked along the outputs,
    /// so query, key and value become one product.
    init(stacking parts: [(weight: UnsafeBufferPointer<Float>, bias: UnsafeBufferPointer<Float>)], inputs: Int, kernel: MatrixKernel) {
        let outputs = parts.reduce(0) { $0 + $1.bias.count }
        let weight = UnsafeMutableBufferPointer<Float>.allocate(capacity: outputs * inputs)
        let bias = UnsafeMutableBufferPointer<Float>.allocate(capacity: outputs)
        var row = 0
        for part in parts {
            _ = UnsafeMutableBufferPointer(rebasing: weight[(row * inputs)...]).initialize(from: part.weight)
            _ = UnsafeMutableBufferPointer(rebasing: bias[row...]).initialize(from: part.bias)
            row += part.bias.count
        }
        (self.inputs, self.outputs, self.kernel) = (inputs, outputs, kernel)
        switch kernel {
        case .blas:
            storage = weight
            self.bias = bias
        case .packed:
            storage = .allocate(capacity: aek_packed_count(Int32(inputs), Int32(outputs)))
            aek_pack(weight.baseAddress!, bias.baseAddress!, Int32(inputs), Int32(outputs), storage.baseAddress!)
            weight.deallocate()
            bias.deallocate()
            self.bias = nil
        }
    }

    deinit {
        storage.deallocate()
        bias?.deallocate()
    }

    /// `y[rows, outputs] = x·Wᵀ + b (+ residual)`, then GELU if asked, on every core
    /// ``EmbeddingConcurrency`` allows.
    func apply(_ x: UnsafePointer<Float>, rows: Int, residual: UnsafePointer<Float>? = nil, gelu: Bool = false,
               into y: UnsafeMutablePointer<Float>) {
        switch kernel {
        case .blas:
            aek_linear_blas(x, Int32(rows), Int32(inputs), storage.baseAddress!, bias!.baseAddress!, Int32(outputs),
                            residual, gelu ? 1 : 0, y)
        case .packed:
            aek_linear_packed(x, Int32(rows), Int32(inputs), storage.baseAddress!, Int32(outputs), residual, gelu ? 1 : 0, y)
        }
    }
}
