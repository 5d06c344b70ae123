// KernelTable: the per-ISA entry points behind kernels.h, and the block layouts they share.
#pragma once

#include <cstdint>

namespace slipstream::agent::infer::kernels::detail {

/// GGUF Q8_0 block: value j = fp16(d) * qs[j].
struct BlockQ8_0 {
    uint16_t d;
    int8_t qs[32];
};
static_assert(sizeof(BlockQ8_0) == 34);

/// GGUF Q4_0 block: value j = fp16(d) * ((qs[j] & 15) - 8), value j + 16 = fp16(d) * ((qs[j] >> 4) - 8).
struct BlockQ4_0 {
    uint16_t d;
    uint8_t qs[16];
};
static_assert(sizeof(BlockQ4_0) == 18);

/// One matmul call as the ISA kernels see it (plain data: the ISA files include no inline code from other headers,
/// so the linker cannot pick a copy compiled for a wider ISA). For Q4_0/Q8_0 weights, xq/xd hold x quantized per
/// 32-element block (batch * cols / 32 blocks of 32 int8 and one float scale each) and x is unused.
struct MatmulTask {
    const uint8_t* w = nullptr;
    int64_t row_bytes = 0;
    int64_t rows = 0;
    int64_t cols = 0;
    int64_t batch = 0;
    const float* x = nullptr;
    const int8_t* xq = nullptr;
    const float* xd = nullptr;
    float* y = nullptr;
};

/// Computes y for rows [r0, r1) and every batch entry.
using MatmulRows = void (*)(const MatmulTask& t, int64_t r0, int64_t r1);

struct KernelTable {
    const char* name;
    MatmulRows matmul_f32;
    MatmulRows matmul_f16;
    MatmulRows matmul_bf16;
    MatmulRows matmul_q8_0;
    MatmulRows matmul_q4_0;
    /// Quantizes n floats (a multiple of 32) to n / 32 blocks: d = max|x| / 127, q = round_even(x * (1 / d)).
    void (*quantize_q8)(const float* x, int8_t* qs, float* d, int64_t n);
    float (*dot)(const float* a, const float* b, int64_t n);
    void (*axpy)(float* y, float a, const float* x, int64_t n);
    float (*sum_squares)(const float* x, int64_t n);
    /// out[i] = x[i] * s * weight[i], or x[i] * s when weight is nullptr.
    void (*scale)(float* out, const float* x, const float* weight, float s, int64_t n);
    /// x[i] = exp(x[i] - max); returns the sum.
    float (*exp_sub_sum)(float* x, float max, int64_t n);
    float (*max)(const float* x, int64_t n);
    void (*silu_mul)(float* gate, const float* up, int64_t n);
};

const KernelTable& portable_table();
/// nullptr when the library was built without that ISA's file (non-x86 targets).
const KernelTable* avx2_table();
const KernelTable* avx512_table();

}  // namespace slipstream::agent::infer::kernels::detail
