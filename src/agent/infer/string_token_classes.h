// StringTokenClasses: per vocabulary, how each token reads inside a JSON string, for the mask inside strings.
#pragma once

#include <array>
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
        uint32_t chars = 0;    // characters before the quote
        uint32_t quote = 0;    // the quote's offset: the suffix is what follows it
        uint32_t suffix = 0;   // its index in suffixes()
        bool escapes = false;  // the suffix has a backslash or a non-ASCII byte (a listed text could refuse it)
    };

    explicit StringTokenClasses(const std::vector<std::string>& bytes);

    /// Per token id: characters a body token begins (< kNotBody), else kNotBody.
    const std::vector<uint8_t>& body_chars() const { return body_chars_; }
    /// Per token id: how its bytes after the first read from a character boundary (after a byte that completes an
    /// escape or a UTF-8 sequence, or opens a string): characters begun (< kTailCloses) if they stay inside,
    /// kTailCloses if they close the string (tail_closers()), kTailInvalid if a byte is refused, kTailOther if they
    /// begin too many characters.
    static constexpr uint8_t kTailCloses = 253, kTailInvalid = 254, kTailOther = 255;
    const std::vector<uint8_t>& tail_chars() const { return tail_chars_; }
    /// Body tokens of kNotBody or more characters (judged one by one).
    const std::vector<int32_t>& long_bodies() const { return long_bodies_; }
    /// The tokens that close the string, by characters before the quote (then suffix).
    const std::vector<Closer>& closers() const { return closers_; }
    /// The tokens with first byte b whose bytes after it close the string (kTailCloses), as closers().
    const std::vector<Closer>& tail_closers(unsigned char b) const { return tail_closers_[b]; }
    /// The distinct suffixes of both kinds of closers, sorted, and the bytes each shares with the next (0 for the
    /// last).
    const std::vector<std::string>& suffixes() const { return suffixes_; }
    const std::vector<uint32_t>& suffix_shared() const { return suffix_shared_; }

  private:
    std::vector<uint8_t> body_chars_;
    std::vector<uint8_t> tail_chars_;
    std::vector<int32_t> long_bodies_;
    std::vector<Closer> closers_;
    std::array<std::vector<Closer>, 256> tail_closers_;
    std::vector<std::string> suffixes_;
    std::vector<uint32_t> suffix_shared_;
};

}  // namespace slipstream::agent::infer
