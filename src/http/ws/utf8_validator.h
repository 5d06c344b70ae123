// Utf8Validator: incremental UTF-8 validation (RFC 3629), for text messages split across frames.
#pragma once

#include <cstdint>
#include <string_view>

namespace slipstream::http::ws {

/// A DFA over bytes (Hoehrmann's design): feed() any split of the input; the text is valid when every
/// feed() returned true and complete() is true at the end. Rejects overlong forms, surrogates and
/// code points past U+10FFFF, as early as the first byte that makes the input invalid.
class Utf8Validator {
  public:
    /// Returns false as soon as the bytes so far cannot be the start of valid UTF-8 (stays false).
    bool feed(std::string_view bytes);
    /// True when the bytes fed so far end on a character boundary (and are valid).
    bool complete() const { return state_ == kAccept; }
    void reset() { state_ = kAccept; }

    /// Validates a whole string at once.
    static bool is_valid(std::string_view bytes);

  private:
    static constexpr std::uint8_t kAccept = 0;
    static constexpr std::uint8_t kReject = 1;
    std::uint8_t state_ = kAccept;
};

}  // namespace slipstream::http::ws
