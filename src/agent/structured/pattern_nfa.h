// PatternNfa: a JSON Schema `pattern` (an ECMA-262 subset) as a Thompson NFA over code points, run as a state set
// that says, after each character, whether any continuation can still make the string match.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json/value.h"

namespace slipstream::agent::structured {

/// A compiled pattern with search semantics (unanchored unless `^`/`$` say otherwise, as JSON Schema's `pattern`
/// is): the string matches when some substring matches. The subset: literals and escapes (`\t \n \r \f \v \0 \xHH
/// \uXXXX \u{X} \cX`, escaped syntax characters), `.`, classes (`[a-z0-9_-]`, negated, `\d \w \s \D \W \S` inside and
/// outside), groups `( )`, `(?: )`, `(?<name> )`, alternation `|`, quantifiers `* + ? {n} {n,} {n,m}` (greedy or
/// lazy), anchors `^ $`; the meaning of each is the whole-document validator's (json/schema/regex.h translated to
/// RE2: `.` excludes the four ECMA line terminators, `\d` and `\w` are ASCII, `\s` is ECMA's whitespace). Anything
/// else (backreferences, lookaround, `\b`, Unicode properties, ...) or an automaton past kMaxStates states is
/// refused: compile() returns null and the pattern stays with the whole-document validator. Immutable; shared.
class PatternNfa {
  public:
    static constexpr std::size_t kMaxStates = 256;
    /// A set of states (only those that read a character or wait for the end), one bit each: copied with the
    /// checker that holds it, without allocating.
    using States = std::array<std::uint64_t, kMaxStates / 64>;

    /// Null when `ecma` is outside the subset, invalid, or too large; `why` (optional) says which.
    static std::shared_ptr<const PatternNfa> compile(std::string_view ecma, std::string* why = nullptr);

    /// The states before the first character.
    const States& start() const { return start_; }
    /// The states after `c`, keeping only those from which the string can still match; empty: no continuation can.
    States step(const States& from, std::uint32_t c) const;
    /// Whether some state of `from` reads a character in [lo, hi] (a character whose first bytes are known).
    bool takes_any(const States& from, std::uint32_t lo, std::uint32_t hi) const {
        return min_via(from, lo, hi) != SIZE_MAX;
    }
    /// The fewest characters, that one included, after which the string can match when its next character is in
    /// [lo, hi]; SIZE_MAX when no state reads one there.
    std::size_t min_via(const States& from, std::uint32_t lo, std::uint32_t hi) const;
    /// Whether the string matches if it ends here (`empty`: no character was read).
    bool accepts(const States& from, bool empty) const;
    static bool none(const States& s) {
        for (std::uint64_t w : s)
            if (w != 0) return false;
        return true;
    }
    /// The fewest characters more after which the string can match (0: it matches if it ends here or a `$` waits;
    /// SIZE_MAX for an empty set), so a `maxLength` that leaves less room refuses now.
    std::size_t min_to_match(const States& from) const;
    /// The most characters more after which the string can still match (SIZE_MAX: no bound; 0 for an empty set),
    /// so a `minLength` beyond it refuses now.
    std::size_t max_to_match(const States& from) const;
    /// The largest finite min_to_match() or max_to_match() of any one state.
    std::size_t max_distance() const { return max_distance_; }
    /// Characters that every state reads alike share a symbol (the code points between the classes' bounds):
    /// symbol(c) < symbols(), and step() with representative(symbol(c)) equals step() with c (for a DFA built lazily).
    std::size_t symbols() const { return bounds_.size(); }
    std::uint32_t symbol(std::uint32_t c) const {
        if (c < 128) return ascii_symbol_[c];
        return static_cast<std::uint32_t>(std::upper_bound(bounds_.begin(), bounds_.end(), c) - bounds_.begin() - 1);
    }
    std::uint32_t representative(std::uint32_t symbol) const { return bounds_[symbol]; }
    /// Whether the string matches whatever follows (the set holds only the state after a match).
    bool settled(const States& s) const;
    std::size_t size() const { return states_.size(); }

    struct Range {
        std::uint32_t lo, hi;
    };
    enum class Kind : std::uint8_t { kChar, kSplit, kStart, kEnd, kMatch };
    struct State {
        Kind kind = Kind::kSplit;
        int out = -1, out2 = -1;  // kChar: out after the character; kSplit: both; kStart/kEnd: out
        std::vector<Range> cls;   // kChar: sorted, disjoint
    };

  private:
    PatternNfa() = default;
    friend class PatternBuilder;
    void finish(int entry, int universal);
    // The reading/waiting states reached from `s` without reading (`at_start`, `at_end`: whether `^` / `$` hold).
    void closure(int s, bool at_start, bool at_end, States& out, std::vector<char>& seen) const;

    std::vector<State> states_;
    std::vector<States> after_;          // per reading state: the live states after its character
    std::vector<std::uint32_t> bounds_;  // sorted: each symbol's first code point (bounds_[0] == 0)
    std::array<std::uint8_t, 128> ascii_symbol_{};
    std::vector<std::size_t> distance_;
    std::vector<std::size_t> longest_;  // per state: the most characters to a match (SIZE_MAX: unbounded)
    std::size_t max_distance_ = 0;      // per state: the fewest characters to a match (SIZE_MAX: none)
    States live_{};
    States start_{};
    int universal_ = -1;  // the state after a match: every continuation matches
};

/// Every `pattern` of a schema document that PatternNfa runs, by the schema node that holds it (sorted by address):
/// made once per schema (CompiledSchema) and shared by its checkers.
using PatternTable = std::vector<std::pair<const json::Value*, std::shared_ptr<const PatternNfa>>>;
std::shared_ptr<const PatternTable> compile_patterns(const json::Value& schema);
/// The table's automaton for `node`'s pattern, or null.
const PatternNfa* find_pattern(const PatternTable& table, const json::Value* node);

}  // namespace slipstream::agent::structured
