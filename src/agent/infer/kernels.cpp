// Kernel entry points: picks the SIMD path once, converts half floats, splits matmul rows over the pool.
#include "agent/infer/kernels.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "agent/infer/kernel_table.h"
#include "base/assert.h"

namespace slipstream::agent::infer::kernels {

namespace {

using detail::KernelTable;

// Widest first; a path is usable when its file was built and the CPU has its instructions.
const KernelTable* table_named(std::string_view name) {
    if (name == "portable") return &detail::portable_table();
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (name == "avx2") {
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) {
            return detail::avx2_table();
        }
        return nullptr;
    }
    if (name == "avx512") {
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
            __builtin_cpu_supports("f16c") && __builtin_cpu_supports("fma")) {
            return detail::avx512_table();
        }
        return nullptr;
    }
#endif
    return nullptr;
}

constexpr std::string_view kPaths[] = {"avx512", "avx2", "portable"};

const KernelTable* choose_table() {
    const char* env = std::getenv("SLIPSTREAM_INFER_SIMD");
    std::string_view want = env != nullptr ? std::string_view(env) : std::string_view("avx512");
    bool reached = false;
    for (std::string_view name : kPaths) {
        reached = reached || name == want;
        if (!reached) continue;
        if (const KernelTable* t = table_named(name)) return t;
    }
    // An unknown name: the widest path this CPU has.
    for (std::string_view name : kPaths) {
        if (const KernelTable* t = table_named(name)) return t;
    }
    return &detail::portable_table();
}

std::atomic<const KernelTable*> g_table{nullptr};

const KernelTable& table() {
    const KernelTable* t = g_table.load(std::memory_order_acquire);
    if (t != nullptr) return *t;
    const KernelTable* chosen = choose_table();
    const KernelTable* expected = nullptr;
    g_table.compare_exchange_strong(expected, chosen, std::memory_order_acq_rel);
    return *g_table.load(std::memory_order_acquire);
}

uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Rows per parallel_for index: small enough that every thread gets several, large enough to amortize the call.
int64_t row_chunk(int64_t rows, int threads) {
    int64_t chunk = rows / (static_cast<int64_t>(threads) * 8);
    chunk &= ~int64_t{15};
    if (chunk < 16) chunk = 16;
    if (chunk > 256) chunk = 256;
    return chunk;
}

}  // namespace

const char* simd_path() {
    return table().name;
}

bool simd_path_available(std::string_view name) {
    return table_named(name) != nullptr;
}

bool use_simd_path(std::string_view name) {
    const KernelTable* t = table_named(name);
    if (t == nullptr) return false;
    g_table.store(t, std::memory_order_release);
    return true;
}

float fp16_to_fp32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    const uint32_t exp = (h >> 10) & 0x1F;
    const uint32_t mant = h & 0x3FF;
    if (exp == 0x1F) return bits_float(sign | 0x7F800000 | (mant << 13));
    if (exp == 0) {
        // Zero or subnormal: mant * 2^-24, exact in float.
        const float v = static_cast<float>(mant) * 0x1p-24f;
        return sign != 0 ? -v : v;
    }
    return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t fp32_to_fp16(float f) {
    const uint32_t x = float_bits(f);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
    const uint32_t ax = x & 0x7FFFFFFF;
    if (ax > 0x7F800000) return sign | 0x7E00 | static_cast<uint16_t>((ax >> 13) & 0x3FF);  // NaN stays quiet NaN
    if (ax >= 0x477FF000) return sign | 0x7C00;  // >= 65520 rounds to infinity (and infinity itself)
    if (ax < 0x38800000) {
        // Below the smallest normal half (2^-14): a subnormal half, mantissa in units of 2^-24.
        if (ax <= 0x33000000) return sign;  // <= 2^-25 rounds (to even) to zero
        const uint32_t e = ax >> 23;
        const uint32_t m = (ax & 0x7FFFFF) | 0x800000;
        const uint32_t shift = 126 - e;
        uint32_t r = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1) != 0)) ++r;
        return sign | static_cast<uint16_t>(r);
    }
    // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even; a carry into the
    // exponent is the right answer.
    const uint32_t r = ax - 0x38000000;
    return sign | static_cast<uint16_t>((r + 0xFFF + ((r >> 13) & 1)) >> 13);
}

float bf16_to_fp32(uint16_t h) {
    return bits_float(static_cast<uint32_t>(h) << 16);
}

uint16_t fp32_to_bf16(float f) {
    const uint32_t x = float_bits(f);
    if ((x & 0x7FFFFFFF) > 0x7F800000) return static_cast<uint16_t>((x >> 16) | 0x40);
    return static_cast<uint16_t>((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

void dequantize_row(const WeightMatrix& w, int64_t r, float* out) {
    const uint8_t* row = w.row(r);
    switch (w.type) {
        case GgmlType::kF32:
            std::memcpy(out, row, static_cast<std::size_t>(w.cols) * 4);
            return;
        case GgmlType::kF16:
            for (int64_t i = 0; i < w.cols; ++i) {
                uint16_t h;
                std::memcpy(&h, row + 2 * i, 2);
                out[i] = fp16_to_fp32(h);
            }
            return;
        case GgmlType::kBF16:
            for (int64_t i = 0; i < w.cols; ++i) {
                uint16_t h;
                std::memcpy(&h, row + 2 * i, 2);
                out[i] = bf16_to_fp32(h);
            }
            return;
        case GgmlType::kQ8_0: {
            const auto* blocks = reinterpret_cast<const detail::BlockQ8_0*>(row);
            for (int64_t k = 0; k < w.cols / 32; ++k) {
                const float d = fp16_to_fp32(blocks[k].d);
                for (int j = 0; j < 32; ++j)
                    out[k * 32 + j] = d * static_cast<float>(blocks[k].qs[j]);
            }
            return;
        }
        case GgmlType::kQ4_0: {
            const auto* blocks = reinterpret_cast<const detail::BlockQ4_0*>(row);
            for (int64_t k = 0; k < w.cols / 32; ++k) {
                const float d = fp16_to_fp32(blocks[k].d);
                for (int j = 0; j < 16; ++j) {
                    out[k * 32 + j] = d * static_cast<float>((blocks[k].qs[j] & 0x0F) - 8);
                    out[k * 32 + j + 16] = d * static_cast<float>((blocks[k].qs[j] >> 4) - 8);
                }
            }
            return;
        }
    }
}

void matmul(const WeightMatrix& w, const float* x, int64_t batch, float* y, ThreadPool& pool) {
    if (w.rows <= 0 || batch <= 0) return;
    const KernelTable& k = table();
    detail::MatmulTask t;
    t.w = static_cast<const uint8_t*>(w.data);
    t.row_bytes = static_cast<int64_t>(w.row_bytes());
    t.rows = w.rows;
    t.cols = w.cols;
    t.batch = batch;
    t.x = x;
    t.y = y;
    detail::MatmulRows fn = nullptr;
    switch (w.type) {
        case GgmlType::kF32:
            fn = k.matmul_f32;
            break;
        case GgmlType::kF16:
            fn = k.matmul_f16;
            break;
        case GgmlType::kBF16:
            fn = k.matmul_bf16;
            break;
        case GgmlType::kQ8_0:
            fn = k.matmul_q8_0;
            break;
        case GgmlType::kQ4_0:
            fn = k.matmul_q4_0;
            break;
    }
    if (fn == nullptr) {
        SLIPSTREAM_BUG(fn != nullptr);
        return;
    }
    thread_local std::vector<int8_t> xq;
    thread_local std::vector<float> xd;
    if (w.type == GgmlType::kQ8_0 || w.type == GgmlType::kQ4_0) {
        if (w.cols % 32 != 0) {
            SLIPSTREAM_BUG(w.cols % 32 == 0);
            return;
        }
        // x is quantized once per call; every row's dot products then run on 8-bit integers.
        xq.resize(static_cast<std::size_t>(batch * w.cols));
        xd.resize(static_cast<std::size_t>(batch * w.cols / 32));
        // Pointers, not the thread_local names: inside the lambda those would name each worker's own buffers.
        int8_t* qs = xq.data();
        float* ds = xd.data();
        t.xq = qs;
        t.xd = ds;
        const int64_t cols = w.cols;
        if (batch >= 4) {
            pool.parallel_for(batch, [&](int64_t b0, int64_t b1) {
                k.quantize_q8(x + b0 * cols, qs + b0 * cols, ds + b0 * cols / 32, (b1 - b0) * cols);
            });
        } else {
            k.quantize_q8(x, qs, ds, batch * cols);
        }
    }
    const int64_t chunk = row_chunk(w.rows, pool.size());
    const int64_t chunks = (w.rows + chunk - 1) / chunk;
    pool.parallel_for(chunks, [&](int64_t c0, int64_t c1) {
        const int64_t r1 = c1 * chunk < w.rows ? c1 * chunk : w.rows;
        fn(t, c0 * chunk, r1);
    });
}

void rms_norm(float* out, const float* x, const float* weight, int64_t n, float eps) {
    if (n <= 0) return;
    const KernelTable& k = table();
    const float ss = k.sum_squares(x, n);
    const float s = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
    k.scale(out, x, weight, s, n);
}

void softmax(float* x, int64_t n) {
    if (n <= 0) return;
    const KernelTable& k = table();
    const float m = k.max(x, n);
    const float sum = k.exp_sub_sum(x, m, n);
    k.scale(x, x, nullptr, 1.0f / sum, n);
}

void silu_mul(float* gate, const float* up, int64_t n) {
    table().silu_mul(gate, up, n);
}

float dot(const float* a, const float* b, int64_t n) {
    return table().dot(a, b, n);
}

void axpy(float* y, float a, const float* x, int64_t n) {
    table().axpy(y, a, x, n);
}

void rope(float* head, int64_t head_dim, int64_t pos, const float* inv_freq, bool neox) {
    const int64_t half = head_dim / 2;
    if (half <= 0) return;
    // Every head of every layer rotates by the same angles within a step: keep the last position's cos/sin
    // (computed in double: pos * inv_freq reaches thousands of radians).
    struct Angles {
        int64_t pos = -1;
        std::vector<float> inv_freq, cos, sin;
    };
    thread_local Angles a;
    if (a.pos != pos || static_cast<int64_t>(a.inv_freq.size()) != half ||
        std::memcmp(a.inv_freq.data(), inv_freq, static_cast<std::size_t>(half) * 4) != 0) {
        a.inv_freq.assign(inv_freq, inv_freq + half);
        a.cos.resize(static_cast<std::size_t>(half));
        a.sin.resize(static_cast<std::size_t>(half));
        for (int64_t i = 0; i < half; ++i) {
            const double theta = static_cast<double>(pos) * static_cast<double>(inv_freq[i]);
            a.cos[i] = static_cast<float>(std::cos(theta));
            a.sin[i] = static_cast<float>(std::sin(theta));
        }
        a.pos = pos;
    }
    const float* c = a.cos.data();
    const float* s = a.sin.data();
    if (neox) {
        float* lo = head;
        float* hi = head + half;
        for (int64_t i = 0; i < half; ++i) {
            const float x0 = lo[i], x1 = hi[i];
            lo[i] = x0 * c[i] - x1 * s[i];
            hi[i] = x0 * s[i] + x1 * c[i];
        }
        return;
    }
    for (int64_t i = 0; i < half; ++i) {
        const float x0 = head[2 * i], x1 = head[2 * i + 1];
        head[2 * i] = x0 * c[i] - x1 * s[i];
        head[2 * i + 1] = x0 * s[i] + x1 * c[i];
    }
}

}  // namespace slipstream::agent::infer::kernels
