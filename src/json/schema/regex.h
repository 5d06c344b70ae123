// Regex: ECMA-262 patterns translated to RE2 (linear time: no hostile pattern or input can stall).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace slipstream::json::schema::detail {

/// Outcome of translating an ECMA-262 pattern.
enum class RegexSyntax {
    kOk,           // translated; `out` holds the RE2 pattern
    kUnsupported,  // valid ECMA-262 that RE2 cannot run: lookaround, backreferences
    kInvalid,      // not a valid ECMA-262 (u-mode) pattern
};

/// Translates an ECMA-262 pattern (JSON Schema's dialect, Unicode mode) to RE2 syntax:
/// `.` excludes all ECMA line terminators, `\s` is ECMA's Unicode whitespace, `\uXXXX` and
/// `\u{X}` become code points, `\p{Letter}` long names map to RE2's short ones, `\cX` controls.
/// `\d`, `\w`, `\b` keep their (identical) ASCII meaning. On failure `error` says why.
RegexSyntax translate_ecma_regex(std::string_view ecma, std::string* out, std::string* error);

/// A compiled, immutable, thread-safe pattern. search() is unanchored, as `pattern` requires.
class Regex {
  public:
    /// Returns nullptr and sets `error` when the pattern is invalid, uses a feature RE2 lacks,
    /// or is too large for RE2's memory budget.
    static std::unique_ptr<Regex> compile(std::string_view ecma, std::string* error);
    ~Regex();
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;

    bool search(std::string_view text) const;
    const std::string& source() const { return source_; }

  private:
    Regex(std::string source, std::unique_ptr<re2::RE2> re);

    std::string source_;
    std::unique_ptr<re2::RE2> re_;
};

}  // namespace slipstream::json::schema::detail

namespace slipstream::json::schema::detail {

/// Whether `ecma` is a valid ECMA-262 pattern (the "regex" format). Lookaround, backreferences
/// and repetitions beyond RE2's limits count as valid syntax even though compile() rejects them.
bool is_valid_ecma_regex(std::string_view ecma);

}  // namespace slipstream::json::schema::detail
