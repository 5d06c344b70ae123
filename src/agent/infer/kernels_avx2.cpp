// AVX2 + FMA + F16C kernels (built with -mavx2 -mfma -mf16c; called only when the CPU has them).
// This file uses no inline functions from other headers, so no copy compiled for AVX2 can stand in for one that
// portable code calls.
#include <immintrin.h>

#include <cstdint>

#include "agent/infer/kernel_table.h"

namespace slipstream::agent::infer::kernels::detail {

namespace {

inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline float hmax(__m256 v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline float f16_scalar(uint16_t h) {
    return _cvtsh_ss(h);
}

// exp(x) to ~2 ulp: x = n ln2 + r, |r| <= ln2/2, e^r by Cephes' expf polynomial, 2^n through the exponent bits.
inline __m256 exp8(__m256 x) {
    // Above 88.37, n would reach 128; those few finite results (up to FLT_MAX) come out as infinity.
    const __m256 hi = _mm256_set1_ps(88.37f);
    const __m256 lo = _mm256_set1_ps(-87.33654475055310f);
    const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    const __m256 r2 = _mm256_mul_ps(r, r);
    __m256 y = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    y = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
    y = _mm256_blendv_ps(y, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
    return y;
}

inline float exp1(float x) {
    alignas(32) float v[8];
    _mm256_store_ps(v, exp8(_mm256_set1_ps(x)));
    return v[0];
}

// ---- matmul over float weights: R rows x B batch entries per tile, 8 columns per step ----

struct LoadF32 {
    static __m256 load(const uint8_t* row, int64_t c) {
        return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + c);
    }
    static float scalar(const uint8_t* row, int64_t c) { return reinterpret_cast<const float*>(row)[c]; }
};

struct LoadF16 {
    static __m256 load(const uint8_t* row, int64_t c) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * c)));
    }
    static float scalar(const uint8_t* row, int64_t c) { return f16_scalar(reinterpret_cast<const uint16_t*>(row)[c]); }
};

struct LoadBF16 {
    static __m256 load(const uint8_t* row, int64_t c) {
        const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * c)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
    }
    static float scalar(const uint8_t* row, int64_t c) {
        const uint32_t u = static_cast<uint32_t>(reinterpret_cast<const uint16_t*>(row)[c]) << 16;
        return _mm_cvtss_f32(_mm_castsi128_ps(_mm_cvtsi32_si128(static_cast<int>(u))));
    }
};

template <typename L>
struct FloatTile {
    template <int R, int B>
    static void tile(const MatmulTask& t, int64_t r0, int64_t b0) {
        const uint8_t* w[R];
        const float* x[B];
        for (int r = 0; r < R; ++r)
            w[r] = t.w + (r0 + r) * t.row_bytes;
        for (int b = 0; b < B; ++b)
            x[b] = t.x + (b0 + b) * t.cols;
        __m256 acc[R][B];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                acc[r][b] = _mm256_setzero_ps();
        }
        int64_t c = 0;
        for (; c + 8 <= t.cols; c += 8) {
            __m256 xv[B];
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                xv[b] = _mm256_loadu_ps(x[b] + c);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                const __m256 wv = L::load(w[r], c);
#pragma GCC unroll 16
                for (int b = 0; b < B; ++b)
                    acc[r][b] = _mm256_fmadd_ps(wv, xv[b], acc[r][b]);
            }
        }
        for (int r = 0; r < R; ++r) {
            for (int b = 0; b < B; ++b) {
                float s = hsum(acc[r][b]);
                for (int64_t cc = c; cc < t.cols; ++cc)
                    s += L::scalar(w[r], cc) * x[b][cc];
                t.y[(b0 + b) * t.rows + r0 + r] = s;
            }
        }
    }
};

// ---- matmul over Q8_0/Q4_0 weights against x quantized to 8 bits: integer dot per 32-element block ----

struct LoadQ8_0 {
    static __m256i load(const uint8_t* row, int64_t k, float* d) {
        const BlockQ8_0* blk = reinterpret_cast<const BlockQ8_0*>(row) + k;
        *d = f16_scalar(blk->d);
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk->qs));
    }
};

struct LoadQ4_0 {
    static __m256i load(const uint8_t* row, int64_t k, float* d) {
        const BlockQ4_0* blk = reinterpret_cast<const BlockQ4_0*>(row) + k;
        *d = f16_scalar(blk->d);
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk->qs));
        const __m128i mask = _mm_set1_epi8(0x0F);
        const __m128i lo = _mm_and_si128(bytes, mask);
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
        return _mm256_sub_epi8(_mm256_set_m128i(hi, lo), _mm256_set1_epi8(8));
    }
};

template <typename L>
struct QuantTile {
    template <int R, int B>
    static void tile(const MatmulTask& t, int64_t r0, int64_t b0) {
        const int64_t nb = t.cols / 32;
        const uint8_t* w[R];
        const int8_t* xq[B];
        const float* xd[B];
        for (int r = 0; r < R; ++r)
            w[r] = t.w + (r0 + r) * t.row_bytes;
        for (int b = 0; b < B; ++b) {
            xq[b] = t.xq + (b0 + b) * t.cols;
            xd[b] = t.xd + (b0 + b) * nb;
        }
        __m256 acc[R][B];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                acc[r][b] = _mm256_setzero_ps();
        }
        const __m256i ones = _mm256_set1_epi16(1);
        for (int64_t k = 0; k < nb; ++k) {
            // Signs move from the weights to x, so maddubs sees |w| (unsigned) times +-x (signed).
            __m256i wabs[R], wsgn[R];
            float dw[R];
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                wsgn[r] = L::load(w[r], k, &dw[r]);
                wabs[r] = _mm256_abs_epi8(wsgn[r]);
            }
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b) {
                const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq[b] + k * 32));
                const float dx = xd[b][k];
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r) {
                    const __m256i p16 = _mm256_maddubs_epi16(wabs[r], _mm256_sign_epi8(xv, wsgn[r]));
                    const __m256 p = _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, ones));
                    acc[r][b] = _mm256_fmadd_ps(p, _mm256_set1_ps(dw[r] * dx), acc[r][b]);
                }
            }
        }
        for (int r = 0; r < R; ++r) {
            for (int b = 0; b < B; ++b)
                t.y[(b0 + b) * t.rows + r0 + r] = hsum(acc[r][b]);
        }
    }
};

// ---- tiling: full R x B tiles, then the leftover batch entries and rows with smaller instantiations ----

template <typename K, int R, int B>
void batch_tail(const MatmulTask& t, int64_t r0, int64_t b0, int64_t n) {
    if constexpr (B > 0) {
        if (n == B) {
            K::template tile<R, B>(t, r0, b0);
            return;
        }
        batch_tail<K, R, B - 1>(t, r0, b0, n);
    }
}

template <typename K, int R, int B>
void all_batches(const MatmulTask& t, int64_t r0) {
    int64_t b = 0;
    for (; b + B <= t.batch; b += B)
        K::template tile<R, B>(t, r0, b);
    if (b < t.batch) batch_tail<K, R, B - 1>(t, r0, b, t.batch - b);
}

template <typename K, int R, int B>
void tiled_rows(const MatmulTask& t, int64_t r0, int64_t r1) {
    int64_t r = r0;
    for (; r + R <= r1; r += R)
        all_batches<K, R, B>(t, r);
    for (; r < r1; ++r)
        all_batches<K, 1, B>(t, r);
}

// Decode (batch 1) streams the weights once: several rows in flight hide load latency. Prefill reuses each
// loaded weight vector across B batch entries, so it is bound by FMA throughput, not memory.
template <typename K, int RDecode, int R, int B>
void matmul_rows(const MatmulTask& t, int64_t r0, int64_t r1) {
    if (t.batch == 1) {
        tiled_rows<K, RDecode, 1>(t, r0, r1);
    } else {
        tiled_rows<K, R, B>(t, r0, r1);
    }
}

// ---- elementwise ----

void quantize_q8(const float* x, int8_t* qs, float* d, int64_t n) {
    const __m256 sign_mask = _mm256_set1_ps(-0.0f);
    for (int64_t k = 0; k < n / 32; ++k) {
        __m256 v[4];
        __m256 amax = _mm256_setzero_ps();
        for (int j = 0; j < 4; ++j) {
            v[j] = _mm256_loadu_ps(x + k * 32 + j * 8);
            amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign_mask, v[j]));
        }
        const float dk = hmax(amax) / 127.0f;
        const float id = dk != 0.0f ? 1.0f / dk : 0.0f;
        const __m256 idv = _mm256_set1_ps(id);
        __m256i q[4];
        for (int j = 0; j < 4; ++j) {
            q[j] = _mm256_cvtps_epi32(
                _mm256_round_ps(_mm256_mul_ps(v[j], idv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        }
        // packs interleave 128-bit lanes; the permute puts the 32 bytes back in order.
        const __m256i q01 = _mm256_packs_epi32(q[0], q[1]);
        const __m256i q23 = _mm256_packs_epi32(q[2], q[3]);
        __m256i b = _mm256_packs_epi16(q01, q23);
        b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(qs + k * 32), b);
        d[k] = dk;
    }
}

float dot(const float* a, const float* b, int64_t n) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
    }
    for (; i + 8 <= n; i += 8)
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    float s = hsum(_mm256_add_ps(acc0, acc1));
    for (; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

void axpy(float* y, float a, const float* x, int64_t n) {
    const __m256 av = _mm256_set1_ps(a);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    }
    for (; i < n; ++i)
        y[i] += a * x[i];
}

float sum_squares(const float* x, int64_t n) {
    return dot(x, x, n);
}

void scale(float* out, const float* x, const float* weight, float s, int64_t n) {
    const __m256 sv = _mm256_set1_ps(s);
    int64_t i = 0;
    if (weight == nullptr) {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), sv));
        for (; i < n; ++i)
            out[i] = x[i] * s;
        return;
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), sv);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(v, _mm256_loadu_ps(weight + i)));
    }
    for (; i < n; ++i)
        out[i] = x[i] * s * weight[i];
}

float max_of(const float* x, int64_t n) {
    __m256 m = _mm256_set1_ps(-__builtin_inff());
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        m = _mm256_max_ps(m, _mm256_loadu_ps(x + i));
    float s = hmax(m);
    for (; i < n; ++i)
        s = x[i] > s ? x[i] : s;
    return s;
}

float exp_sub_sum(float* x, float max, int64_t n) {
    const __m256 mv = _mm256_set1_ps(max);
    __m256 acc = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
        _mm256_storeu_ps(x + i, e);
        acc = _mm256_add_ps(acc, e);
    }
    float s = hsum(acc);
    for (; i < n; ++i) {
        x[i] = exp1(x[i] - max);
        s += x[i];
    }
    return s;
}

void silu_mul(float* gate, const float* up, int64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 neg = _mm256_set1_ps(-0.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 s = _mm256_div_ps(g, _mm256_add_ps(one, exp8(_mm256_xor_ps(g, neg))));
        _mm256_storeu_ps(gate + i, _mm256_mul_ps(s, _mm256_loadu_ps(up + i)));
    }
    for (; i < n; ++i)
        gate[i] = gate[i] / (1.0f + exp1(-gate[i])) * up[i];
}

}  // namespace

const KernelTable* avx2_table() {
    static const KernelTable table{
        "avx2",
        matmul_rows<FloatTile<LoadF32>, 4, 4, 3>,
        matmul_rows<FloatTile<LoadF16>, 4, 4, 3>,
        matmul_rows<FloatTile<LoadBF16>, 4, 4, 3>,
        matmul_rows<QuantTile<LoadQ8_0>, 4, 2, 4>,
        matmul_rows<QuantTile<LoadQ4_0>, 4, 2, 4>,
        quantize_q8,
        dot,
        axpy,
        sum_squares,
        scale,
        exp_sub_sum,
        max_of,
        silu_mul,
    };
    return &table;
}

}  // namespace slipstream::agent::infer::kernels::detail
