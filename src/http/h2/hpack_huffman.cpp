// HPACK Huffman coding: a 64-bit accumulator for encoding, a 10-bit table (canonical search for longer codes)
// for decoding.
#include "http/h2/hpack_huffman.h"

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
    unsigned sym;
    unsigned bits;
};

// The symbol whose code starts at the top of `acc` (the bits after the input's end are zero).
inline Symbol next_symbol(std::uint64_t acc) {
    std::uint16_t e = detail::kHuffmanShort[acc >> (64 - detail::kHuffmanShortBits)];
    if (e != 0) return {static_cast<unsigned>(e >> 5), e & 31u};
    std::uint64_t window = acc >> 32;
    unsigned len = detail::kHuffmanShortBits + 1;
    while (window >= detail::kHuffmanLimit[len])
        ++len;  // kHuffmanLimit[30] is 2^32: always stops
    return {detail::kHuffmanSorted[static_cast<std::uint32_t>(window >> (32 - len)) - detail::kHuffmanDelta[len]], len};
}

}  // namespace

std::size_t huffman_encoded_size(std::string_view s) {
    std::size_t bits = 0;
    for (unsigned char c : s)
        bits += kHuffmanCodes[c].bits;
    return (bits + 7) / 8;
}

void huffman_encode(std::string_view s, std::string& out) {
    std::size_t old = out.size();
    out.resize(old + huffman_encoded_size(s));
    char* dst = out.data() + old;
    // Codes are at most 30 bits and fewer than 32 wait in `acc`, so 61 bits at most are live.
    std::uint64_t acc = 0;
    unsigned n = 0;
    for (unsigned char c : s) {
        acc = (acc << kHuffmanCodes[c].bits) | kHuffmanCodes[c].code;
        n += kHuffmanCodes[c].bits;
        if (n >= 32) {
            n -= 32;
            store_be32(dst, static_cast<std::uint32_t>(acc >> n));
            dst += 4;
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
}

bool huffman_decode(std::string_view in, std::string& out) {
    std::size_t old = out.size();
    out.resize(old + in.size() * 8 / 5);  // the shortest code is 5 bits
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
        } else {
            while (n <= 56 && p < end) {
                acc |= static_cast<std::uint64_t>(*p++) << (56 - n);
                n += 8;
            }
        }
        if (n >= 30) {
            // Every code fits: decode until fewer than 30 bits are left.
            do {
                Symbol s = next_symbol(acc);
                if (s.sym == 256) return false;
                *dst++ = static_cast<char>(s.sym);
                acc <<= s.bits;
                n -= s.bits;
            } while (n >= 30);
            continue;
        }
        if (p < end) continue;
        // The input's end: whole codes, then at most 7 bits of EOS's prefix (all ones).
        while (n > 0) {
            if (n <= 7 && (acc >> (64 - n)) == (1u << n) - 1) break;
            Symbol s = next_symbol(acc);
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
