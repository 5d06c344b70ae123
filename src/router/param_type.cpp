// Names of parameter types and the per-type segment checks used on the lookup path.
#include "router/param_type.h"

#include <array>
#include <charconv>
#include <limits>

namespace slipstream::server {
namespace {

constexpr std::array<std::string_view, 5> kTypeNames = {"int", "float", "uuid", "str", "path"};

constexpr bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

constexpr bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

std::string_view param_type_name(ParamType type) {
    return kTypeNames[static_cast<std::size_t>(type)];
}

std::optional<ParamType> parse_param_type(std::string_view name) {
    for (std::size_t i = 0; i < kTypeNames.size(); ++i) {
        if (kTypeNames[i] == name) return static_cast<ParamType>(i);
    }
    return std::nullopt;
}

namespace detail {

bool accept_int(std::string_view seg, std::int64_t* value) {
    std::size_t i = 0;
    bool negative = false;
    if (!seg.empty() && (seg[0] == '-' || seg[0] == '+')) {
        negative = seg[0] == '-';
        i = 1;
    }
    if (i == seg.size()) return false;
    while (i + 1 < seg.size() && seg[i] == '0')
        ++i;  // leading zeros do not count toward the limit
    // Up to 19 digits fit in uint64 without a per-digit overflow check (10^19 - 1 < 2^64).
    if (seg.size() - i > 19) return false;  // out of range, or not a number at all
    std::uint64_t acc = 0;
    for (; i < seg.size(); ++i) {
        auto digit = static_cast<unsigned>(static_cast<unsigned char>(seg[i]) - '0');
        if (digit > 9) return false;
        acc = acc * 10 + digit;
    }
    constexpr std::uint64_t kMaxPositive = std::numeric_limits<std::int64_t>::max();
    if (acc > kMaxPositive + (negative ? 1 : 0)) return false;
    // Negate in unsigned arithmetic so that INT64_MIN needs no overflow.
    *value = negative ? static_cast<std::int64_t>(~acc + 1) : static_cast<std::int64_t>(acc);
    return true;
}

bool accept_float(std::string_view seg, double* value) {
    std::size_t i = 0;
    if (!seg.empty() && (seg[0] == '-' || seg[0] == '+')) i = 1;
    std::size_t int_digits = 0;
    while (i < seg.size() && is_digit(seg[i]))
        ++i, ++int_digits;
    if (int_digits == 0) return false;
    if (i < seg.size()) {
        if (seg[i] != '.') return false;
        ++i;
        std::size_t frac_digits = 0;
        while (i < seg.size() && is_digit(seg[i]))
            ++i, ++frac_digits;
        if (frac_digits == 0 || i != seg.size()) return false;
    }
    // from_chars takes no leading '+'.
    std::string_view digits = seg[0] == '+' ? seg.substr(1) : seg;
    auto res = std::from_chars(digits.data(), digits.data() + digits.size(), *value);
    // A value beyond double's range (over- or underflow) does not match, like an int64 overflow.
    return res.ec == std::errc() && res.ptr == digits.data() + digits.size();
}

bool accept_uuid(std::string_view seg) {
    if (seg.size() != 36) return false;
    for (std::size_t i = 0; i < 36; ++i) {
        bool dash_pos = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash_pos ? seg[i] != '-' : !is_hex(seg[i])) return false;
    }
    return true;
}

}  // namespace detail
}  // namespace slipstream::server
