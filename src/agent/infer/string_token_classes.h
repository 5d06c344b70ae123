// StringTokenClasses: per vocabulary, how each token reads inside a JSON string, for the mask inside strings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slipstream::agent::infer {

/// Each token read as the continuation of a JSON string at a character boundary (agent/structured's
/// read_string_run), made once per vocabulary: inside a string whose schema checks count only its length, a body
/// token (no closing quote, nothing invalid) is allowed by its character count alone, an invalid one never, and a
/// token that closes the string depends only on its character count and the bytes after the quote (its suffix),
/// so tokens with the same suffix share one check.
class StringTokenClasses {
  public:
    /// body_chars() of a token that is not a body token, or one with too many characters for a byte.
    static constexpr uint8_t kNotBody = 255;

    struct Closer {
        int32_t token = 0;
        uint32_t chars = 0;  // characters before the quote
        uint32_t quote = 0;  // the quote's offset: the suffix is what follows it
    };

    explicit StringTokenClasses(const std::vector<std::string>& bytes);

    /// Per token id: characters a body token begins (< kNotBody), else kNotBody.
    const std::vector<uint8_t>& body_chars() const { return body_chars_; }
    /// Body tokens of kNotBody or more characters (judged one by one).
    const std::vector<int32_t>& long_bodies() const { return long_bodies_; }
    /// The tokens that close the string, sorted by suffix (then characters) and by characters (then suffix).
    const std::vector<Closer>& closers_by_suffix() const { return by_suffix_; }
    const std::vector<Closer>& closers_by_chars() const { return by_chars_; }

  private:
    std::vector<uint8_t> body_chars_;
    std::vector<int32_t> long_bodies_;
    std::vector<Closer> by_suffix_;
    std::vector<Closer> by_chars_;
};

}  // namespace slipstream::agent::infer
