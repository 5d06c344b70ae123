// Token masks as bits: packing a byte-per-token mask into 64-bit words and expanding it back, vectorized.
#pragma once

#include <cstdint>
#include <span>

namespace slipstream::agent::infer {

/// Words a mask of `tokens` entries takes as bits.
constexpr std::size_t mask_words(std::size_t tokens) {
    return (tokens + 63) / 64;
}

/// bits[i / 64] bit i % 64 = (bytes[i] != 0), for every i < bytes.size(); the last word's unused bits are 0.
/// bits.size() must be mask_words(bytes.size()). ~1 us for 128k tokens (AVX-512 where the CPU has it).
void pack_mask(std::span<const uint8_t> bytes, std::span<uint64_t> bits);

/// bytes[i] = bit i of bits (1 or 0), for every i < bytes.size(); bits.size() must be mask_words(bytes.size()).
void expand_mask(std::span<const uint64_t> bits, std::span<uint8_t> bytes);

}  // namespace slipstream::agent::infer
