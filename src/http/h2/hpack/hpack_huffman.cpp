// HPACK Huffman coding: a 64-bit accumulator for encoding; for decoding, a 12-bit table that yields up to two
// symbols per lookup (canonical-code limits for the rare longer codes).
#include "http/h2/hpack/hpack_huffman.h"

#include <cstring>

namespace slipstream::http::h2 {
namespace {

using detail::kHuffmanCodes;

inline void store_be32(char* p, std::uint32_t v) {
    v = __builtin_bswap32(v);
    std::memcpy(p, &v, 4);
}

inline std::uint64_t load_be64(const unsigned char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

struct Symbol {
    unsigned sym;  // 256: EOS
    unsigned bits;
};

// A code longer than kHuffmanShortBits starting at the top of `acc`.
inline Symbol long_symbol(std::uint64_t acc) {
    std::uint64_t window = acc >> 32;
    unsigned len = detail::kHuffmanShortBits + 1;
    while (window >= detail::kHuffmanLimit[len])
        ++len;  // kHuffmanLimit[30] is 2^32: always stops
    return {detail::kHuffmanSorted[static_cast<std::uint32_t>(window >> (32 - len)) - detail::kHuffmanDelta[len]], len};
}

// The one symbol whose code starts at the top of `acc`.
inline Symbol one_symbol(std::uint64_t acc) {
    std::uint32_t e = detail::kHuffmanPairs[acc >> (64 - detail::kHuffmanShortBits)];
    if (e == 0) return long_symbol(acc);
    return {e & 0xffu, (e >> 23) & 31u};
}

}  // namespace

std::size_t huffman_encoded_size(std::string_view s) {
    // Eight bytes per step, summed in scalar code (compilers' gathers over the table are slower).
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t n = s.size();
    std::size_t bits = 0;
    const std::uint8_t* len = detail::kHuffmanBits.data();
    for (; n >= 8; p += 8, n -= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        bits += len[w & 0xff] + len[(w >> 8) & 0xff] + len[(w >> 16) & 0xff] + len[(w >> 24) & 0xff] +
                len[(w >> 32) & 0xff] + len[(w >> 40) & 0xff] + len[(w >> 48) & 0xff] + len[w >> 56];
    }
    if (n >= 4) {
        bits += len[p[0]] + len[p[1]] + len[p[2]] + len[p[3]];
        p += 4;
        n -= 4;
    }
    if (n >= 2) {
        bits += len[p[0]] + len[p[1]];
        p += 2;
        n -= 2;
    }
    if (n > 0) bits += len[p[0]];
    return (bits + 7) / 8;
}

namespace {

// Appends the code of `s` at dst, EOS-padded; returns the end. Bounded: gives up (nullptr) once the code reaches
// `limit` (having written at most 4 bytes past it). Codes are at most 30 bits and fewer than 32 wait in `acc`,
// so 61 bits at most are live. (Two symbols per step measured no fewer instructions.)
template <bool kBounded>
char* encode_codes(std::string_view s, char* dst, const char* limit) {
    std::uint64_t acc = 0;
    unsigned n = 0;
    for (unsigned char c : s) {
        acc = (acc << kHuffmanCodes[c].bits) | kHuffmanCodes[c].code;
        n += kHuffmanCodes[c].bits;
        if (n >= 32) {
            n -= 32;
            store_be32(dst, static_cast<std::uint32_t>(acc >> n));
            dst += 4;
            if (kBounded && dst >= limit) return nullptr;
        }
    }
    if (n > 0) {
        unsigned pad = (8 - n % 8) % 8;
        acc = (acc << pad) | ((1u << pad) - 1);
        n += pad;
        while (n > 0) {
            n -= 8;
            *dst++ = static_cast<char>(acc >> n);
        }
    }
    return dst;
}

}  // namespace

void huffman_encode(std::string_view s, std::string& out) {
    detail::huffman_encode_sized(s, huffman_encoded_size(s), out);
}

void detail::huffman_encode_sized(std::string_view s, std::size_t encoded_size, std::string& out) {
    std::size_t old = out.size();
    out.resize(old + encoded_size);
    encode_codes<false>(s, out.data() + old, nullptr);
}

std::size_t detail::huffman_encode_if_shorter(std::string_view s, char* dst) {
    char* end = encode_codes<true>(s, dst, dst + s.size());
    if (end == nullptr) return s.size();
    std::size_t size = static_cast<std::size_t>(end - dst);
    return size < s.size() ? size : s.size();
}

bool huffman_decode(std::string_view in, std::string& out) {
    std::size_t old = out.size();
    // The shortest code is 5 bits; one more byte for the second symbol a pair lookup stores but may not count.
    out.resize(old + in.size() * 8 / 5 + 1);
    char* dst = out.data() + old;
    const auto* p = reinterpret_cast<const unsigned char*>(in.data());
    const unsigned char* end = p + in.size();
    // The top `n` bits of `acc` are the input not yet decoded; below them, zeros or the same input again.
    std::uint64_t acc = 0;
    unsigned n = 0;
    bool ok = true;
    for (;;) {
        if (end - p >= 8) {
            acc |= load_be64(p) >> n;
            p += (63 - n) >> 3;
            n |= 56;
        } else if (p != end && in.size() >= 8) {
            // The last 1-7 bytes: the input's last word, those bytes moved to its top; as many as fit are counted.
            auto left = static_cast<unsigned>(end - p);
            acc |= (load_be64(end - 8) << (8 * (8 - left))) >> n;
            unsigned take = (63 - n) >> 3 < left ? (63 - n) >> 3 : left;
            p += take;
            n += 8 * take;
        } else {
            while (n <= 56 && p < end) {
                acc |= static_cast<std::uint64_t>(*p++) << (56 - n);
                n += 8;
            }
        }
        if (n >= 30) {
            // Every code fits: decode until fewer than 30 bits are left.
            do {
                std::uint32_t e = detail::kHuffmanPairs[acc >> (64 - detail::kHuffmanShortBits)];
                if (e != 0) {
                    dst[0] = static_cast<char>(e);  // both stored, `count` of them kept
                    dst[1] = static_cast<char>(e >> 8);
                    dst += (e >> 16) & 3;
                    unsigned bits = (e >> 18) & 31;
                    acc <<= bits;
                    n -= bits;
                } else {
                    Symbol s = long_symbol(acc);
                    if (s.sym == 256) {
                        ok = false;
                        break;
                    }
                    *dst++ = static_cast<char>(s.sym);
                    acc <<= s.bits;
                    n -= s.bits;
                }
            } while (n >= 30);
            if (!ok) break;
            continue;
        }
        if (p < end) continue;
        // The input's end: whole codes, then at most 7 bits of EOS's prefix (all ones). A pair entry whose codes
        // lie within the n real bits is taken whole; no complete code is all ones and 7 bits or shorter.
        while (n > 0) {
            std::uint32_t e = detail::kHuffmanPairs[acc >> (64 - detail::kHuffmanShortBits)];
            if (e != 0 && ((e >> 18) & 31) <= n) {
                dst[0] = static_cast<char>(e);
                dst[1] = static_cast<char>(e >> 8);
                dst += (e >> 16) & 3;
                acc <<= (e >> 18) & 31;
                n -= (e >> 18) & 31;
                continue;
            }
            if (n <= 7 && (acc >> (64 - n)) == (1u << n) - 1) break;
            Symbol s = one_symbol(acc);
            if (s.bits > n || s.sym == 256) {
                ok = false;
                break;
            }
            *dst++ = static_cast<char>(s.sym);
            acc <<= s.bits;
            n -= s.bits;
        }
        break;
    }
    out.resize(static_cast<std::size_t>(dst - out.data()));
    return ok;
}

}  // namespace slipstream::http::h2
