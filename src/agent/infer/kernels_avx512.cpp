// AVX-512 (F, BW, VL, VNNI) kernels (built with -mavx512*; called only when the CPU has them).
// This file uses no inline functions from other headers, so no copy compiled for AVX-512 can stand in for one
// that portable code calls.
// GCC 12's AVX-512 headers read _mm512_undefined_*() values that its own -Wuninitialized then reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#include "agent/infer/kernel_table.h"

namespace slipstream::agent::infer::kernels::detail {

namespace {

inline __mmask16 tail_mask16(int64_t n) {
    return static_cast<__mmask16>((1u << n) - 1);
}

// exp(x) to ~2 ulp: x = n ln2 + r, |r| <= ln2/2, e^r by Cephes' expf polynomial, then scalef for 2^n (which
// underflows to zero and overflows to infinity by itself, so the clamp only keeps r finite).
inline __m512 exp16(__m512 x) {
    const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(89.0f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    const __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(y, n);
}

// ---- matmul over float weights: R rows x B batch entries per tile, 16 columns per step, masked tail ----

struct LoadF32 {
    static __m512 load(const uint8_t* row, int64_t c) { return _mm512_loadu_ps(row + 4 * c); }
    static __m512 load(const uint8_t* row, int64_t c, __mmask16 m) { return _mm512_maskz_loadu_ps(m, row + 4 * c); }
};

struct LoadF16 {
    static __m512 load(const uint8_t* row, int64_t c) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * c)));
    }
    static __m512 load(const uint8_t* row, int64_t c, __mmask16 m) {
        return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, row + 2 * c));
    }
};

struct LoadBF16 {
    static __m512 widen(__m256i h) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)); }
    static __m512 load(const uint8_t* row, int64_t c) {
        return widen(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * c)));
    }
    static __m512 load(const uint8_t* row, int64_t c, __mmask16 m) {
        return widen(_mm256_maskz_loadu_epi16(m, row + 2 * c));
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
        __m512 acc[R][B];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                acc[r][b] = _mm512_setzero_ps();
        }
        int64_t c = 0;
        for (; c + 16 <= t.cols; c += 16) {
            __m512 xv[B];
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                xv[b] = _mm512_loadu_ps(x[b] + c);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                const __m512 wv = L::load(w[r], c);
#pragma GCC unroll 16
                for (int b = 0; b < B; ++b)
                    acc[r][b] = _mm512_fmadd_ps(wv, xv[b], acc[r][b]);
            }
        }
        if (c < t.cols) {
            const __mmask16 m = tail_mask16(t.cols - c);
            __m512 xv[B];
            for (int b = 0; b < B; ++b)
                xv[b] = _mm512_maskz_loadu_ps(m, x[b] + c);
            for (int r = 0; r < R; ++r) {
                const __m512 wv = L::load(w[r], c, m);
                for (int b = 0; b < B; ++b)
                    acc[r][b] = _mm512_fmadd_ps(wv, xv[b], acc[r][b]);
            }
        }
        for (int r = 0; r < R; ++r) {
            for (int b = 0; b < B; ++b)
                t.y[(b0 + b) * t.rows + r0 + r] = _mm512_reduce_add_ps(acc[r][b]);
        }
    }
};

// ---- matmul over Q8_0/Q4_0 weights: two 32-element blocks per 512-bit register, VNNI dot products ----

// Two blocks' int8 weights (the second zero when !two) and their scales, broadcast per 256-bit half.
struct LoadQ8_0 {
    static __m512i load(const uint8_t* row, int64_t k, bool two, __m512* scale) {
        const BlockQ8_0* blk = reinterpret_cast<const BlockQ8_0*>(row) + k;
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk[0].qs));
        const __m256i b =
            two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk[1].qs)) : _mm256_setzero_si256();
        *scale = _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(_cvtsh_ss(blk[0].d)),
                                      _mm512_set1_ps(two ? _cvtsh_ss(blk[1].d) : 0.0f));
        return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
    }
};

struct LoadQ4_0 {
    static __m256i unpack(const BlockQ4_0& blk) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk.qs));
        const __m128i mask = _mm_set1_epi8(0x0F);
        const __m128i lo = _mm_and_si128(bytes, mask);
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
        return _mm256_sub_epi8(_mm256_set_m128i(hi, lo), _mm256_set1_epi8(8));
    }
    static __m512i load(const uint8_t* row, int64_t k, bool two, __m512* scale) {
        const BlockQ4_0* blk = reinterpret_cast<const BlockQ4_0*>(row) + k;
        const __m256i a = unpack(blk[0]);
        const __m256i b = two ? unpack(blk[1]) : _mm256_setzero_si256();
        *scale = _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(_cvtsh_ss(blk[0].d)),
                                      _mm512_set1_ps(two ? _cvtsh_ss(blk[1].d) : 0.0f));
        return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
    }
};

template <typename L>
struct QuantTile {
    template <int R, int B>
    static void step(const MatmulTask& t, const uint8_t* const* w, const int8_t* const* xq, const float* const* xd,
                     int64_t k, bool two, __m512 (&acc)[R][B]) {
        // vpdpbusd multiplies unsigned by signed bytes: feed it |w| and x with w's sign.
        __m512i wabs[R];
        __mmask64 wneg[R];
        __m512 wscale[R];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            const __m512i wq = L::load(w[r], k, two, &wscale[r]);
            wabs[r] = _mm512_abs_epi8(wq);
            wneg[r] = _mm512_movepi8_mask(wq);
        }
        const __mmask64 xmask = two ? ~__mmask64{0} : __mmask64{0xFFFFFFFF};
#pragma GCC unroll 16
        for (int b = 0; b < B; ++b) {
            const __m512i xv = _mm512_maskz_loadu_epi8(xmask, xq[b] + k * 32);
            const __m512 xscale =
                _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(xd[b][k]), _mm512_set1_ps(two ? xd[b][k + 1] : 0.0f));
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                const __m512i xs = _mm512_mask_sub_epi8(xv, wneg[r], _mm512_setzero_si512(), xv);
                const __m512i d = _mm512_dpbusd_epi32(_mm512_setzero_si512(), wabs[r], xs);
                acc[r][b] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), _mm512_mul_ps(wscale[r], xscale), acc[r][b]);
            }
        }
    }

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
        __m512 acc[R][B];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                acc[r][b] = _mm512_setzero_ps();
        }
        int64_t k = 0;
        for (; k + 2 <= nb; k += 2)
            step<R, B>(t, w, xq, xd, k, true, acc);
        if (k < nb) step<R, B>(t, w, xq, xd, k, false, acc);
        for (int r = 0; r < R; ++r) {
            for (int b = 0; b < B; ++b)
                t.y[(b0 + b) * t.rows + r0 + r] = _mm512_reduce_add_ps(acc[r][b]);
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

// Decode (batch 1) streams the weights once; prefill reuses each loaded weight vector across B batch entries
// (R x B accumulators in 16 of the 32 zmm registers).
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
    for (int64_t k = 0; k < n / 32; ++k) {
        const __m512 v0 = _mm512_loadu_ps(x + k * 32);
        const __m512 v1 = _mm512_loadu_ps(x + k * 32 + 16);
        const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
        const float dk = amax / 127.0f;
        const float id = dk != 0.0f ? 1.0f / dk : 0.0f;
        const __m512 idv = _mm512_set1_ps(id);
        const __m512i q0 = _mm512_cvtps_epi32(
            _mm512_roundscale_ps(_mm512_mul_ps(v0, idv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        const __m512i q1 = _mm512_cvtps_epi32(
            _mm512_roundscale_ps(_mm512_mul_ps(v1, idv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(qs + k * 32), _mm512_cvtsepi32_epi8(q0));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(qs + k * 32 + 16), _mm512_cvtsepi32_epi8(q1));
        d[k] = dk;
    }
}

float dot(const float* a, const float* b, int64_t n) {
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
        acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), acc1);
    }
    for (; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : tail_mask16(n - i);
        acc0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), acc0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

void axpy(float* y, float a, const float* x, int64_t n) {
    const __m512 av = _mm512_set1_ps(a);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : tail_mask16(n - i);
        const __m512 v = _mm512_fmadd_ps(av, _mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i));
        _mm512_mask_storeu_ps(y + i, m, v);
    }
}

float sum_squares(const float* x, int64_t n) {
    return dot(x, x, n);
}

void scale(float* out, const float* x, const float* weight, float s, int64_t n) {
    const __m512 sv = _mm512_set1_ps(s);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : tail_mask16(n - i);
        __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), sv);
        if (weight != nullptr) v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, weight + i));
        _mm512_mask_storeu_ps(out + i, m, v);
    }
}

float max_of(const float* x, int64_t n) {
    __m512 mx = _mm512_set1_ps(-__builtin_inff());
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : tail_mask16(n - i);
        mx = _mm512_mask_max_ps(mx, m, mx, _mm512_maskz_loadu_ps(m, x + i));
    }
    return _mm512_reduce_max_ps(mx);
}

float exp_sub_sum(float* x, float max, int64_t n) {
    const __m512 mv = _mm512_set1_ps(max);
    __m512 acc = _mm512_setzero_ps();
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : tail_mask16(n - i);
        const __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), mv));
        _mm512_mask_storeu_ps(x + i, m, e);
        acc = _mm512_mask_add_ps(acc, m, acc, e);
    }
    return _mm512_reduce_add_ps(acc);
}

void silu_mul(float* gate, const float* up, int64_t n) {
    const __m512 one = _mm512_set1_ps(1.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : tail_mask16(n - i);
        const __m512 g = _mm512_maskz_loadu_ps(m, gate + i);
        const __m512 s = _mm512_div_ps(g, _mm512_add_ps(one, exp16(_mm512_sub_ps(_mm512_setzero_ps(), g))));
        _mm512_mask_storeu_ps(gate + i, m, _mm512_mul_ps(s, _mm512_maskz_loadu_ps(m, up + i)));
    }
}

}  // namespace

const KernelTable* avx512_table() {
    static const KernelTable table{
        "avx512",
        matmul_rows<FloatTile<LoadF32>, 4, 4, 4>,
        matmul_rows<FloatTile<LoadF16>, 4, 4, 4>,
        matmul_rows<FloatTile<LoadBF16>, 4, 4, 4>,
        matmul_rows<QuantTile<LoadQ8_0>, 4, 4, 4>,
        matmul_rows<QuantTile<LoadQ4_0>, 4, 4, 4>,
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
