// SSE2 scanners: 16 bytes per step over the common bytes of a class, the byte table for the rest.
#pragma once

#include <cstdint>

// SLIPSTREAM_H1_SCALAR forces the table-only path (to test and measure it).
#if defined(__SSE2__) && !defined(SLIPSTREAM_H1_SCALAR)
#define SLIPSTREAM_H1_SIMD 1
#include <emmintrin.h>
#endif

#include "http/h1/char_class.h"

namespace slipstream::http::h1::detail {

#if defined(SLIPSTREAM_H1_SIMD)
// 0xff in each lane whose unsigned byte is in [lo, hi].
inline __m128i lanes_in(__m128i v, char lo, char hi) {
    const __m128i shifted = _mm_sub_epi8(v, _mm_set1_epi8(lo));
    return _mm_cmpeq_epi8(_mm_subs_epu8(shifted, _mm_set1_epi8(static_cast<char>(hi - lo))), _mm_setzero_si128());
}

// Lanes of the letters A-Z a-z.
inline __m128i lanes_letter(__m128i v) {
    return lanes_in(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'z');  // folds A-Z onto a-z (and nothing else)
}

inline __m128i lanes_eq(__m128i v, char c) {
    return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}

#endif

// Each `Fast` below names a subset of a byte class cheap to test 16 bytes at a time; the other bytes of the
// class are rare there and are looked up in the table. Fewer operations per step beat a wider subset.

// Lanes of the common field-name bytes: ALPHA '-' (a subset of kTchar).
struct TokenFast {
#if defined(SLIPSTREAM_H1_SIMD)
    __m128i operator()(__m128i v) const {
        return _mm_or_si128(lanes_letter(v), lanes_eq(v, '-'));
    }
#endif
};

// Lanes of the common path and query bytes: ALPHA, '$' to ';' (DIGIT and $%&'()*+,-./:;), '=' and '_'
// (a subset of kPathChar and kTargetChar).
struct TargetFast {
#if defined(SLIPSTREAM_H1_SIMD)
    __m128i operator()(__m128i v) const {
        const __m128i punct = _mm_or_si128(lanes_eq(v, '='), lanes_eq(v, '_'));
        return _mm_or_si128(_mm_or_si128(lanes_letter(v), lanes_in(v, '$', ';')), punct);
    }
#endif
};

// Lanes of the common Host bytes: ALPHA DIGIT - . : (a subset of kHostChar).
struct HostFast {
#if defined(SLIPSTREAM_H1_SIMD)
    __m128i operator()(__m128i v) const {
        return _mm_or_si128(_mm_or_si128(lanes_letter(v), lanes_in(v, '0', ':')), lanes_in(v, '-', '.'));
    }
#endif
};

/// First byte in [p, end) outside `mask`, like scan_class. `Fast` names a subset of `mask` checked 16 bytes at a
/// time; a byte outside it is looked up in the table, then the 16-byte steps resume.
template <typename Fast>
inline const char* scan_class_fast(const char* p, const char* end, std::uint8_t mask) {
#if defined(SLIPSTREAM_H1_SIMD)
    const Fast fast;
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const auto miss = static_cast<unsigned>(~_mm_movemask_epi8(fast(v)) & 0xffff);
        if (miss == 0) {
            p += 16;
            continue;
        }
        p += __builtin_ctz(miss);
        if (!has_class(*p, mask)) return p;
        ++p;
    }
#endif
    return scan_class(p, end, mask);
}

/// First byte in [p, end) that may not appear in a field value: a CTL other than HTAB, or DEL.
inline const char* scan_field_value(const char* p, const char* end) {
#if defined(SLIPSTREAM_H1_SIMD)
    // One signed compare flags the CTLs and DEL, and also HTAB and obs-text (0x80-0xff), both rare: a hit that
    // is a field byte steps over it and goes on.
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i suspect = _mm_cmpgt_epi8(_mm_set1_epi8(0x21), _mm_add_epi8(v, _mm_set1_epi8(1)));
        const int miss = _mm_movemask_epi8(suspect);
        if (miss == 0) {
            p += 16;
            continue;
        }
        p += __builtin_ctz(static_cast<unsigned>(miss));
        if (!has_class(*p, kFieldChar)) return p;
        ++p;
    }
#endif
    return scan_class(p, end, kFieldChar);
}

}  // namespace slipstream::http::h1::detail
