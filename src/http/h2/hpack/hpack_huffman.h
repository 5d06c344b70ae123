// HPACK Huffman coding (RFC 7541 §5.2, code of Appendix B): sizes, encoding and strict decoding.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace slipstream::http::h2 {

/// Bytes `s` takes Huffman-coded (EOS padding included).
std::size_t huffman_encoded_size(std::string_view s);
/// Appends the Huffman code of `s`, padded to a byte with the most significant bits of EOS.
void huffman_encode(std::string_view s, std::string& out);
/// Appends the decoded `in`. False (out then holds an unspecified tail): EOS inside, padding longer than 7 bits
/// or not all ones.
bool huffman_decode(std::string_view in, std::string& out);

namespace detail {

/// huffman_encode() for a caller that already knows huffman_encoded_size(s).
void huffman_encode_sized(std::string_view s, std::size_t encoded_size, std::string& out);
/// One pass for an encoder choosing the shorter form: writes the code of `s` at `dst` (room for s.size() + 8
/// bytes) and returns its length when it is shorter than s, else s.size() (as soon as it is known; `dst` then
/// holds an unspecified prefix).
std::size_t huffman_encode_if_shorter(std::string_view s, char* dst);

/// One code of Appendix B, right-aligned in `code`, `bits` long.
struct HuffmanCode {
    std::uint32_t code;
    std::uint8_t bits;
};
/// Appendix B: symbols 0-255, then EOS (256).
extern const std::array<HuffmanCode, 257> kHuffmanCodes;

/// Bits of each symbol's code (kHuffmanCodes[sym].bits, packed for size computations).
extern const std::array<std::uint8_t, 256> kHuffmanBits;

/// Decoding tables derived from Appendix B at compile time (hpack_huffman_table.cpp). kHuffmanPairs, indexed by
/// the next kHuffmanShortBits input bits, gives the one or two whole codes they start with: bits 0-7 the first
/// symbol, 8-15 the second, 16-17 how many (0: the first code is longer), 18-22 the bits both take, 23-27 the
/// first one's length. The code is canonical (codes of one length are consecutive, in symbol order, and shorter
/// codes sort first), so a longer code is found from the next 32 bits, left-aligned: its length is the first L
/// with window < kHuffmanLimit[L], its symbol kHuffmanSorted[(window >> (32 - L)) - kHuffmanDelta[L]].
inline constexpr unsigned kHuffmanShortBits = 12;
extern const std::array<std::uint32_t, 1u << kHuffmanShortBits> kHuffmanPairs;
/// Left-aligned end (exclusive) of the codes of each length, 0-30.
extern const std::array<std::uint64_t, 31> kHuffmanLimit;
/// Per length: the first code of that length minus the position of its symbol in kHuffmanSorted.
extern const std::array<std::uint32_t, 31> kHuffmanDelta;
/// Symbols in code order.
extern const std::array<std::uint16_t, 257> kHuffmanSorted;

}  // namespace detail
}  // namespace slipstream::http::h2
