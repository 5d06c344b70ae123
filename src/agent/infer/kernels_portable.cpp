// Portable C++ kernels: the reference every SIMD path is tested against, and the fallback on any CPU.
#include <cmath>
#include <cstring>
#include <vector>

#include "agent/infer/kernel_table.h"
#include "agent/infer/kernels.h"

namespace slipstream::agent::infer::kernels::detail {

namespace {

// Eight partial sums, so the compiler can keep them in one vector register.
float dot_f32(const float* a, const float* b, int64_t n) {
    float acc[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j)
            acc[j] += a[i + j] * b[i + j];
    }
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

template <typename Convert>
void matmul_float(const MatmulTask& t, int64_t r0, int64_t r1, Convert convert) {
    thread_local std::vector<float> row;
    row.resize(static_cast<std::size_t>(t.cols));
    for (int64_t r = r0; r < r1; ++r) {
        convert(t.w + r * t.row_bytes, row.data(), t.cols);
        for (int64_t b = 0; b < t.batch; ++b)
            t.y[b * t.rows + r] = dot_f32(row.data(), t.x + b * t.cols, t.cols);
    }
}

void matmul_f32(const MatmulTask& t, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
        const float* w = reinterpret_cast<const float*>(t.w + r * t.row_bytes);
        for (int64_t b = 0; b < t.batch; ++b)
            t.y[b * t.rows + r] = dot_f32(w, t.x + b * t.cols, t.cols);
    }
}

void matmul_f16(const MatmulTask& t, int64_t r0, int64_t r1) {
    matmul_float(t, r0, r1, [](const uint8_t* src, float* out, int64_t n) {
        const uint16_t* h = reinterpret_cast<const uint16_t*>(src);
        for (int64_t i = 0; i < n; ++i)
            out[i] = fp16_to_fp32(h[i]);
    });
}

void matmul_bf16(const MatmulTask& t, int64_t r0, int64_t r1) {
    matmul_float(t, r0, r1, [](const uint8_t* src, float* out, int64_t n) {
        const uint16_t* h = reinterpret_cast<const uint16_t*>(src);
        for (int64_t i = 0; i < n; ++i)
            out[i] = bf16_to_fp32(h[i]);
    });
}

// Unpacks a weight block to 32 signed values and returns its scale.
inline float unpack(const BlockQ8_0& blk, int8_t* q) {
    std::memcpy(q, blk.qs, 32);
    return fp16_to_fp32(blk.d);
}

inline float unpack(const BlockQ4_0& blk, int8_t* q) {
    for (int j = 0; j < 16; ++j) {
        q[j] = static_cast<int8_t>((blk.qs[j] & 0x0F) - 8);
        q[j + 16] = static_cast<int8_t>((blk.qs[j] >> 4) - 8);
    }
    return fp16_to_fp32(blk.d);
}

template <typename Block>
void matmul_quant(const MatmulTask& t, int64_t r0, int64_t r1) {
    const int64_t nb = t.cols / 32;
    thread_local std::vector<int8_t> wq;
    thread_local std::vector<float> wd;
    wq.resize(static_cast<std::size_t>(t.cols));
    wd.resize(static_cast<std::size_t>(nb));
    for (int64_t r = r0; r < r1; ++r) {
        const Block* blocks = reinterpret_cast<const Block*>(t.w + r * t.row_bytes);
        for (int64_t k = 0; k < nb; ++k)
            wd[k] = unpack(blocks[k], wq.data() + k * 32);
        for (int64_t b = 0; b < t.batch; ++b) {
            const int8_t* xq = t.xq + b * t.cols;
            const float* xd = t.xd + b * nb;
            float s = 0.0f;
            for (int64_t k = 0; k < nb; ++k) {
                int32_t isum = 0;
                for (int j = 0; j < 32; ++j)
                    isum += int32_t{wq[k * 32 + j]} * int32_t{xq[k * 32 + j]};
                s += (wd[k] * xd[k]) * static_cast<float>(isum);
            }
            t.y[b * t.rows + r] = s;
        }
    }
}

void quantize_q8(const float* x, int8_t* qs, float* d, int64_t n) {
    for (int64_t k = 0; k < n / 32; ++k) {
        const float* xb = x + k * 32;
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j)
            amax = std::fmax(amax, std::fabs(xb[j]));
        const float dk = amax / 127.0f;
        const float id = dk != 0.0f ? 1.0f / dk : 0.0f;
        for (int j = 0; j < 32; ++j)
            qs[k * 32 + j] = static_cast<int8_t>(std::nearbyint(xb[j] * id));
        d[k] = dk;
    }
}

void axpy(float* y, float a, const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        y[i] += a * x[i];
}

float sum_squares(const float* x, int64_t n) {
    return dot_f32(x, x, n);
}

void scale(float* out, const float* x, const float* weight, float s, int64_t n) {
    if (weight == nullptr) {
        for (int64_t i = 0; i < n; ++i)
            out[i] = x[i] * s;
        return;
    }
    for (int64_t i = 0; i < n; ++i)
        out[i] = x[i] * s * weight[i];
}

float exp_sub_sum(float* x, float max, int64_t n) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        x[i] = std::exp(x[i] - max);
        sum += x[i];
    }
    return sum;
}

float max_of(const float* x, int64_t n) {
    float m = -INFINITY;
    for (int64_t i = 0; i < n; ++i)
        m = std::fmax(m, x[i]);
    return m;
}

void silu_mul(float* gate, const float* up, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace

const KernelTable& portable_table() {
    static const KernelTable table{
        "portable",
        matmul_f32,
        matmul_f16,
        matmul_bf16,
        matmul_quant<BlockQ8_0>,
        matmul_quant<BlockQ4_0>,
        quantize_q8,
        dot_f32,
        axpy,
        sum_squares,
        scale,
        exp_sub_sum,
        max_of,
        silu_mul,
    };
    return table;
}

}  // namespace slipstream::agent::infer::kernels::detail
