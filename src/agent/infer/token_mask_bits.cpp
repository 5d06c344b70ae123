// Token masks as bits: a portable loop, and AVX-512BW (a mask register per 64 tokens) chosen at run time.
#include "agent/infer/token_mask_bits.h"

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SLIPSTREAM_MASK_AVX512 1
#endif

namespace slipstream::agent::infer {
namespace {

void pack_portable(const uint8_t* in, size_t n, uint64_t* out, size_t from_word) {
    for (size_t w = from_word; w * 64 < n; ++w) {
        uint64_t word = 0;
        const size_t end = n - w * 64 < 64 ? n - w * 64 : 64;
        for (size_t b = 0; b < end; ++b)
            word |= static_cast<uint64_t>(in[w * 64 + b] != 0) << b;
        out[w] = word;
    }
}

void expand_portable(const uint64_t* in, uint8_t* out, size_t n, size_t from_word) {
    for (size_t w = from_word; w * 64 < n; ++w) {
        const uint64_t word = in[w];
        const size_t end = n - w * 64 < 64 ? n - w * 64 : 64;
        for (size_t b = 0; b < end; ++b)
            out[w * 64 + b] = static_cast<uint8_t>((word >> b) & 1);
    }
}

#ifdef SLIPSTREAM_MASK_AVX512
__attribute__((target("avx512f,avx512bw"))) size_t pack_avx512(const uint8_t* in, size_t n, uint64_t* out) {
    size_t w = 0;
    for (; (w + 1) * 64 <= n; ++w) {
        const __m512i v = _mm512_loadu_si512(in + w * 64);
        out[w] = _mm512_test_epi8_mask(v, v);
    }
    return w;
}

__attribute__((target("avx512f,avx512bw"))) size_t expand_avx512(const uint64_t* in, uint8_t* out, size_t n) {
    size_t w = 0;
    const __m512i one = _mm512_set1_epi8(1);
    for (; (w + 1) * 64 <= n; ++w)
        _mm512_storeu_si512(out + w * 64, _mm512_maskz_mov_epi8(in[w], one));
    return w;
}

__attribute__((target("avx2"))) size_t pack_avx2(const uint8_t* in, size_t n, uint64_t* out) {
    size_t w = 0;
    const __m256i zero = _mm256_setzero_si256();
    for (; (w + 1) * 64 <= n; ++w) {
        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + w * 64));
        const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + w * 64 + 32));
        const auto z_lo = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, zero)));
        const auto z_hi = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, zero)));
        out[w] = ~(uint64_t{z_hi} << 32 | z_lo);
    }
    return w;
}

// 32 tokens at a time: each byte takes the byte of the word that holds its bit, then tests its own bit.
__attribute__((target("avx2"))) size_t expand_avx2(const uint64_t* in, uint8_t* out, size_t n) {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3,
                                            3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
    const __m256i one = _mm256_set1_epi8(1);
    size_t h = 0;  // 32-token halves
    for (; (h + 1) * 32 <= n; ++h) {
        const auto half = static_cast<uint32_t>(in[h / 2] >> (h % 2 * 32));
        const __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(half)), spread);
        const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + h * 32), _mm256_and_si256(set, one));
    }
    return h / 2;
}

bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}

bool has_avx512() {
    static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    return yes;
}
#endif

}  // namespace

void pack_mask(std::span<const uint8_t> bytes, std::span<uint64_t> bits) {
    size_t done = 0;
#ifdef SLIPSTREAM_MASK_AVX512
    if (has_avx512()) {
        done = pack_avx512(bytes.data(), bytes.size(), bits.data());
    } else if (has_avx2()) {
        done = pack_avx2(bytes.data(), bytes.size(), bits.data());
    }
#endif
    pack_portable(bytes.data(), bytes.size(), bits.data(), done);
}

void expand_mask(std::span<const uint64_t> bits, std::span<uint8_t> bytes) {
    size_t done = 0;
#ifdef SLIPSTREAM_MASK_AVX512
    if (has_avx512()) {
        done = expand_avx512(bits.data(), bytes.data(), bytes.size());
    } else if (has_avx2()) {
        done = expand_avx2(bits.data(), bytes.data(), bytes.size());
    }
#endif
    expand_portable(bits.data(), bytes.data(), bytes.size(), done);
}

}  // namespace slipstream::agent::infer
