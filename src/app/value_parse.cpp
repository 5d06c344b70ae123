// Parsing and formatting of option values: booleans, integers, byte sizes and durations.
#include "app/value_parse.h"

#include <array>
#include <limits>
#include <utility>

namespace slipstream::app {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

struct Unit {
    std::string_view suffix;
    std::uint64_t factor;
};

// Largest first, so formatting picks the largest exact unit.
constexpr std::array<Unit, 6> kSizeUnits{
    {{"g", 1ull << 30}, {"m", 1ull << 20}, {"k", 1ull << 10}, {"G", 1ull << 30}, {"M", 1ull << 20}, {"K", 1ull << 10}}};
constexpr std::array<Unit, 4> kDurationUnits{{{"h", 3'600'000}, {"m", 60'000}, {"s", 1'000}, {"ms", 1}}};

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// Digits to a number; false on overflow. The caller has checked all_digits().
bool to_number(std::string_view digits, std::uint64_t* out) {
    std::uint64_t n = 0;
    for (char c : digits) {
        auto d = static_cast<std::uint64_t>(c - '0');
        if (n > (kMax - d) / 10) return false;
        n = n * 10 + d;
    }
    *out = n;
    return true;
}

std::string quoted(std::string_view text) {
    return "'" + std::string(text) + "'";
}

// Splits "123abc" into digits and suffix, then scales by the matching unit.
base::Result<std::uint64_t> scaled(std::string_view text, const Unit* units, std::size_t n_units, bool unit_required,
                                   std::string_view what, std::string_view expected) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
        ++digits;
    std::string_view number = text.substr(0, digits);
    std::string_view suffix = text.substr(digits);
    auto bad = [&] {
        return base::Status::invalid_argument("invalid " + std::string(what) + " " + quoted(text) + " (expected " +
                                              std::string(expected) + ")");
    };
    if (number.empty()) return bad();
    std::uint64_t factor = 0;
    if (suffix.empty() && !unit_required) factor = 1;
    for (std::size_t i = 0; i < n_units && factor == 0; ++i)
        if (units[i].suffix == suffix) factor = units[i].factor;
    if (factor == 0) return bad();
    std::uint64_t n = 0;
    if (!to_number(number, &n) || n > kMax / factor)
        return base::Status::out_of_range(std::string(what) + " " + quoted(text) + " is too large");
    return n * factor;
}

}  // namespace

base::Result<bool> parse_bool(std::string_view text) {
    static constexpr std::pair<std::string_view, bool> kWords[] = {{"true", true}, {"false", false}, {"1", true},
                                                                   {"0", false},   {"yes", true},    {"no", false},
                                                                   {"on", true},   {"off", false}};
    for (const auto& [word, value] : kWords)
        if (word == text) return value;
    return base::Status::invalid_argument("invalid boolean " + quoted(text) + " (expected true or false)");
}

base::Result<std::uint64_t> parse_integer(std::string_view text) {
    if (!all_digits(text)) return base::Status::invalid_argument("invalid integer " + quoted(text));
    std::uint64_t n = 0;
    if (!to_number(text, &n)) return base::Status::out_of_range("integer " + quoted(text) + " is too large");
    return n;
}

base::Result<std::uint64_t> parse_size(std::string_view text) {
    return scaled(text, kSizeUnits.data(), kSizeUnits.size(), false, "size", "bytes with optional suffix k, m or g");
}

base::Result<std::uint64_t> parse_duration_ms(std::string_view text) {
    return scaled(text, kDurationUnits.data(), kDurationUnits.size(), true, "duration",
                  "a number with unit ms, s, m or h");
}

std::string format_size(std::uint64_t bytes) {
    for (std::size_t i = 0; i < 3; ++i) {
        const Unit& u = kSizeUnits[i];
        if (bytes != 0 && bytes % u.factor == 0) return std::to_string(bytes / u.factor) + std::string(u.suffix);
    }
    return std::to_string(bytes);
}

std::string format_duration_ms(std::uint64_t ms) {
    for (const Unit& u : kDurationUnits)
        if (ms != 0 && ms % u.factor == 0) return std::to_string(ms / u.factor) + std::string(u.suffix);
    return "0ms";
}

}  // namespace slipstream::app
