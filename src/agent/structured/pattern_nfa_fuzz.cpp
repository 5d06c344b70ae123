// libFuzzer target: a pattern (the input's first line) and a text (the rest): where PatternNfa compiles the pattern,
// it must match the text exactly when the whole-document validator's regex does, and never refuse a prefix of a
// matching text (an early refusal the validator would not make aborts).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "agent/structured/pattern_nfa.h"
#include "json/schema/regex.h"
#include "json/utf8.h"

namespace {

// The text's code points, or false when it is not UTF-8 (a JSON string's text always is).
bool decode(std::string_view s, std::vector<std::uint32_t>& out) {
    if (slipstream::json::detail::find_invalid_utf8(s) != s.size()) return false;
    for (std::size_t i = 0, n = 0; i < s.size(); i += n)
        out.push_back(slipstream::json::detail::decode_utf8(s, i, &n));
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using slipstream::agent::structured::PatternNfa;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    if (newline == std::string_view::npos || newline > 200) return 0;
    const std::string_view pattern = input.substr(0, newline);
    const std::string_view text = input.substr(newline + 1);
    std::vector<std::uint32_t> pattern_points, points;
    if (!decode(pattern, pattern_points) || !decode(text, points)) return 0;
    const auto nfa = PatternNfa::compile(pattern);
    std::string error;
    const auto re = slipstream::json::schema::detail::Regex::compile(pattern, &error);
    if (nfa == nullptr) return 0;
    if (re == nullptr) std::abort();  // the subset compiles only what the validator runs
    const bool want = re->search(text);
    PatternNfa::States s = nfa->start();
    for (std::uint32_t c : points) {
        if (want && !nfa->takes_any(s, c, c)) std::abort();
        s = nfa->step(s, c);
        if (PatternNfa::none(s)) {
            if (want) std::abort();
            return 0;
        }
    }
    if (nfa->accepts(s, points.empty()) != want) std::abort();
    return 0;
}
