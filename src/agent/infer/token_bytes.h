// TokenBytes: every token's bytes, in byte order with shared-prefix lengths, so constraints prune by prefix.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/infer/string_token_classes.h"

namespace slipstream::agent::infer {

/// Built once per model (from Tokenizer::decode of each id) and shared, immutable, by every constrained sequence.
/// Special tokens that render as nothing have empty bytes.
class TokenBytes {
  public:
    /// bytes[t]: token t's bytes; the logits' width is bytes.size() (ids past the tokenizer's: empty).
    explicit TokenBytes(std::vector<std::string> bytes);
    TokenBytes(const TokenBytes&) = delete;  // its views point into its own arena
    TokenBytes& operator=(const TokenBytes&) = delete;

    int64_t size() const { return static_cast<int64_t>(by_id_.size()); }
    std::string_view bytes(int32_t token) const {
        return token >= 0 && static_cast<size_t>(token) < by_id_.size() ? by_id_[static_cast<size_t>(token)] : "";
    }
    /// The non-empty tokens sorted by their bytes.
    const std::vector<int32_t>& order() const { return order_; }
    /// The bytes of order()[i]; in memory in that order too, so walking the order reads memory in sequence.
    std::string_view at(uint32_t i) const { return by_order_[i]; }
    /// shared_prefix()[i]: bytes order()[i] shares with order()[i + 1] (0 for the last).
    const std::vector<uint32_t>& shared_prefix() const { return shared_; }
    /// [begin, end) of order() whose tokens start with byte b.
    std::pair<uint32_t, uint32_t> first_byte_range(unsigned char b) const { return {first_[b], first_[b + 1]}; }
    /// [begin, end) of order() whose tokens start with bytes b, c (those of the one byte b come before c = 0's).
    std::pair<uint32_t, uint32_t> second_byte_range(unsigned char b, unsigned char c) const {
        const size_t k = size_t{b} * 257 + c;
        return {second_[k], second_[k + 1]};
    }
    /// The second bytes of the tokens that start with byte b, ascending.
    const std::vector<uint8_t>& second_bytes(unsigned char b) const { return seconds_[b]; }
    /// The position in order() past the tokens from `from` on (up to `end`) that start with `prefix`.
    uint32_t past_prefix(uint32_t from, uint32_t end, std::string_view prefix) const;
    /// [begin, end) of order() whose tokens start with `prefix` (those equal to it first).
    std::pair<uint32_t, uint32_t> prefix_range(std::string_view prefix) const;
    /// Whether order()[i] is made of ASCII digits only.
    bool all_digits_at(uint32_t i) const { return (kinds_[i] & kDigits) != 0; }
    /// Whether order()[i] is made of JSON whitespace only (space, tab, newline, carriage return).
    bool all_space_at(uint32_t i) const { return (kinds_[i] & kSpace) != 0; }
    /// The longest token's length in bytes.
    size_t max_bytes() const { return max_bytes_; }
    /// The most bytes a token begins with that could continue a number (digits, a fraction, an exponent).
    size_t max_number_prefix() const { return max_number_prefix_; }
    /// The most '}' and ']' bytes (containers a token could close), and '{' and '[' bytes, in one token.
    size_t max_closers() const { return max_closers_; }
    size_t max_openers() const { return max_openers_; }
    /// How each token reads inside a JSON string.
    const StringTokenClasses& string_classes() const { return classes_; }

  private:
    std::vector<std::string> bytes_;  // emptied once the tables below are made
    std::string arena_;               // every token's bytes, in order()
    std::vector<std::string_view> by_id_, by_order_;
    static constexpr uint8_t kDigits = 1, kSpace = 2;
    std::vector<uint8_t> kinds_;  // per position in order(): kDigits, kSpace when all the token's bytes are such
    std::vector<int32_t> order_;
    std::vector<uint32_t> shared_;
    std::array<uint32_t, 257> first_{};
    std::vector<uint32_t> second_;  // 256 x 257: per first byte, where each second byte's tokens begin, and the end
    std::array<std::vector<uint8_t>, 256> seconds_;
    size_t max_bytes_ = 0;
    size_t max_number_prefix_ = 0;
    size_t max_closers_ = 0, max_openers_ = 0;
    StringTokenClasses classes_;
};

}  // namespace slipstream::agent::infer
