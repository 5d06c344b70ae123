// Decimal-text integer arithmetic for kBigInt values: conversion, exact comparison, divisibility.
#include "json/big_integer.h"

#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

namespace slipstream::json {
namespace {

bool negative(std::string_view text) {
    return !text.empty() && text[0] == '-';
}

std::string_view magnitude(std::string_view text) {
    return negative(text) ? text.substr(1) : text;
}

// Magnitudes without leading zeros: longer is larger, else the first differing digit decides.
int compare_magnitudes(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    const int c = a.compare(b);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
}

// x -= y for digit strings with x >= y; x keeps no leading zeros ("" is zero).
void subtract(std::string& x, std::string_view y) {
    int borrow = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::size_t xi = x.size() - 1 - i;
        int d = (x[xi] - '0') - borrow - (i < y.size() ? y[y.size() - 1 - i] - '0' : 0);
        borrow = d < 0 ? 1 : 0;
        x[xi] = static_cast<char>('0' + (d + 10 * borrow));
    }
    const std::size_t first = x.find_first_not_of('0');
    x.erase(0, first == std::string::npos ? x.size() : first);
}

}  // namespace

double big_integer_to_double(std::string_view text) {
    double d = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (ec == std::errc::result_out_of_range) return negative(text) ? -HUGE_VAL : HUGE_VAL;
    return d;
}

int compare_big_integers(std::string_view a, std::string_view b) {
    const bool na = negative(a), nb = negative(b);
    if (na != nb) return na ? -1 : 1;
    const int c = compare_magnitudes(magnitude(a), magnitude(b));
    return na ? -c : c;
}

int compare_big_integer_double(std::string_view text, double d) {
    if (std::isinf(d)) return d > 0 ? -1 : 1;
    if (std::fabs(d) < 18446744073709551616.0 && std::trunc(d) != d) {
        // A fraction: compare with its integer part; on a tie the fraction decides.
        const int c = compare_big_integers(text, integer_text(std::trunc(d)));
        return c != 0 ? c : (d > 0 ? -1 : 1);
    }
    return compare_big_integers(text, integer_text(d));
}

std::string integer_text(double d) {
    const bool neg = d < 0;
    const double a = std::fabs(d);
    std::string out = neg && a != 0 ? "-" : "";
    if (a < 18446744073709551616.0) return out + std::to_string(static_cast<std::uint64_t>(a));
    // a = m * 2^k exactly, m < 2^53, k > 0: multiply m by 2^k in base 1e9.
    int e = 0;
    const double f = std::frexp(a, &e);
    auto m = static_cast<std::uint64_t>(std::ldexp(f, 53));
    int k = e - 53;
    constexpr std::uint64_t kBase = 1'000'000'000;
    std::vector<std::uint64_t> limbs;  // little-endian
    for (; m > 0; m /= kBase)
        limbs.push_back(m % kBase);
    while (k > 0) {
        const int shift = k < 30 ? k : 30;
        k -= shift;
        std::uint64_t carry = 0;
        for (std::uint64_t& limb : limbs) {
            const std::uint64_t v = (limb << shift) + carry;
            limb = v % kBase;
            carry = v / kBase;
        }
        for (; carry > 0; carry /= kBase)
            limbs.push_back(carry % kBase);
    }
    out += std::to_string(limbs.back());
    for (std::size_t i = limbs.size() - 1; i-- > 0;) {
        const std::string part = std::to_string(limbs[i]);
        out.append(9 - part.size(), '0').append(part);
    }
    return out;
}

std::uint64_t big_integer_mod(std::string_view text, std::uint64_t m) {
    unsigned __int128 r = 0;
    for (char c : magnitude(text))
        r = (r * 10 + static_cast<unsigned>(c - '0')) % m;
    return static_cast<std::uint64_t>(r);
}

bool big_integer_divisible(std::string_view a, std::string_view b) {
    const std::string_view divisor = magnitude(b);
    std::string rem;
    for (char c : magnitude(a)) {
        if (!rem.empty() || c != '0') rem.push_back(c);
        while (compare_magnitudes(rem, divisor) >= 0)
            subtract(rem, divisor);
    }
    return rem.empty();
}

}  // namespace slipstream::json
