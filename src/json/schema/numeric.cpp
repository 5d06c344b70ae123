// Exact number comparison and decimal multipleOf.
#include "json/schema/numeric.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "json/big_integer.h"

namespace slipstream::json::schema::detail {
namespace {

using u128 = unsigned __int128;

int sign3(bool less, bool greater) {
    return less ? -1 : (greater ? 1 : 0);
}

// int64 vs double, exactly.
int compare_int_double(std::int64_t i, double d) {
    if (std::isnan(d)) return kUnordered;
    if (d >= 9223372036854775808.0) return -1;
    if (d < -9223372036854775808.0) return 1;
    double t = std::trunc(d);
    auto ti = static_cast<std::int64_t>(t);
    if (i != ti) return sign3(i<ti, i> ti);
    double frac = d - t;
    return sign3(frac > 0, frac < 0);
}

int compare_uint_double(std::uint64_t u, double d) {
    if (std::isnan(d)) return kUnordered;
    if (d >= 18446744073709551616.0) return -1;
    if (d < 0) return 1;
    double t = std::trunc(d);
    auto tu = static_cast<std::uint64_t>(t);
    if (u != tu) return sign3(u<tu, u> tu);
    return d > t ? -1 : 0;
}

// |x| = mantissa * 10^exponent from the shortest round-trip decimal form.
struct Decimal {
    std::uint64_t mantissa = 0;
    int exponent = 0;
};

bool to_decimal(const json::Value& v, Decimal* out) {
    if (v.type() == json::Type::kInt) {
        std::int64_t i = v.as_int();
        out->mantissa = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
        out->exponent = 0;
        return true;
    }
    if (v.type() == json::Type::kUint) {
        out->mantissa = v.as_uint();
        out->exponent = 0;
        return true;
    }
    double d = std::fabs(v.as_double());
    if (!std::isfinite(d)) return false;
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
    auto e = s.find('e');
    std::uint64_t m = 0;
    int frac_digits = 0;
    bool after_point = false;
    for (char c : s.substr(0, e)) {
        if (c == '.') {
            after_point = true;
            continue;
        }
        m = m * 10 + static_cast<std::uint64_t>(c - '0');
        if (after_point) ++frac_digits;
    }
    int exp = 0;
    std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exp);
    out->mantissa = m;
    out->exponent = exp - frac_digits;
    return true;
}

std::uint64_t pow10_mod(int n, std::uint64_t mod) {
    u128 result = 1 % mod, base = 10 % mod;
    while (n > 0) {
        if (n & 1) result = result * base % mod;
        base = base * base % mod;
        n >>= 1;
    }
    return static_cast<std::uint64_t>(result);
}

// A kBigInt against any number: it lies outside int64/uint64, so its sign decides against those.
int compare_big(const json::Value& big, const json::Value& other) {
    using json::Type;
    const bool negative = big.as_decimal()[0] == '-';
    switch (other.type()) {
        case Type::kBigInt:
            return json::compare_big_integers(big.as_decimal(), other.as_decimal());
        case Type::kDouble:
            if (std::isnan(other.as_double())) return kUnordered;
            return json::compare_big_integer_double(big.as_decimal(), other.as_double());
        default:
            return negative ? -1 : 1;
    }
}

// The exact decimal text of an integral number (any representation).
std::string integer_text(const json::Value& v) {
    if (v.type() == json::Type::kBigInt) return std::string(v.as_decimal());
    if (v.type() == json::Type::kInt) return std::to_string(v.as_int());
    if (v.type() == json::Type::kUint) return std::to_string(v.as_uint());
    return json::integer_text(v.as_double());
}

// multipleOf when either side is a kBigInt: exact on the decimal texts.
bool big_multiple_of(const json::Value& x, const json::Value& divisor) {
    if (!is_integral(x)) return false;  // a fraction is no multiple of an integer >= 2^63
    const std::string digits = integer_text(x);
    if (divisor.type() == json::Type::kBigInt) return json::big_integer_divisible(digits, divisor.as_decimal());
    // x is a kBigInt: D = dm * 10^de (the divisor's shortest decimal form).
    Decimal dd;
    if (!to_decimal(divisor, &dd) || dd.mantissa == 0) return false;
    std::string_view prefix = digits;
    if (dd.exponent > 0) {
        // X must end in de zeros, and X / 10^de must be a multiple of dm.
        const auto zeros = static_cast<std::size_t>(dd.exponent);
        if (zeros >= prefix.size() || prefix.find_first_not_of('0', prefix.size() - zeros) != std::string_view::npos)
            return false;
        prefix.remove_suffix(zeros);
        return json::big_integer_mod(prefix, dd.mantissa) == 0;
    }
    // X * 10^-de must be a multiple of dm.
    const u128 r = static_cast<u128>(json::big_integer_mod(prefix, dd.mantissa)) * pow10_mod(-dd.exponent, dd.mantissa);
    return r % dd.mantissa == 0;
}

}  // namespace

int compare_numbers(const json::Value& a, const json::Value& b) {
    using json::Type;
    Type ta = a.type(), tb = b.type();
    if (ta == Type::kBigInt) return compare_big(a, b);
    if (tb == Type::kBigInt) {
        int r = compare_big(b, a);
        return r == kUnordered ? r : -r;
    }
    if (ta == Type::kInt && tb == Type::kInt) return sign3(a.as_int() < b.as_int(), a.as_int() > b.as_int());
    if (ta == Type::kUint && tb == Type::kUint) return sign3(a.as_uint() < b.as_uint(), a.as_uint() > b.as_uint());
    if (ta == Type::kInt && tb == Type::kUint) return a.as_int() < 0 ? -1 : -compare_numbers(b, a);
    if (ta == Type::kUint && tb == Type::kInt) {
        if (b.as_int() < 0) return 1;
        auto bu = static_cast<std::uint64_t>(b.as_int());
        return sign3(a.as_uint() < bu, a.as_uint() > bu);
    }
    if (ta == Type::kDouble && tb == Type::kDouble) {
        double x = a.as_double(), y = b.as_double();
        if (std::isnan(x) || std::isnan(y)) return kUnordered;
        return sign3(x<y, x> y);
    }
    if (ta == Type::kDouble) {
        int r = compare_numbers(b, a);
        return r == kUnordered ? r : -r;
    }
    // a is an integer, b a double.
    return ta == Type::kInt ? compare_int_double(a.as_int(), b.as_double())
                            : compare_uint_double(a.as_uint(), b.as_double());
}

bool is_integral(const json::Value& v) {
    if (v.is_integer()) return true;
    if (v.type() != json::Type::kDouble) return false;
    double d = v.as_double();
    return std::isfinite(d) && d == std::trunc(d);
}

bool is_multiple_of(const json::Value& x, const json::Value& divisor) {
    // Only lax conversion makes these ("inf" for a float): pydantic's remainder test is false for NaN, so it
    // accepts them.
    if (x.type() == json::Type::kDouble && !std::isfinite(x.as_double())) return true;
    if (x.type() == json::Type::kBigInt || divisor.type() == json::Type::kBigInt) return big_multiple_of(x, divisor);
    if (x.is_integer() && divisor.is_integer()) {
        std::uint64_t d =
            divisor.type() == json::Type::kInt ? static_cast<std::uint64_t>(divisor.as_int()) : divisor.as_uint();
        if (d == 0) return false;
        std::uint64_t m = x.type() == json::Type::kUint ? x.as_uint()
                          : x.as_int() < 0              ? 0 - static_cast<std::uint64_t>(x.as_int())
                                                        : static_cast<std::uint64_t>(x.as_int());
        return m % d == 0;
    }
    Decimal xd, dd;
    if (!to_decimal(x, &xd) || !to_decimal(divisor, &dd) || dd.mantissa == 0) return false;
    if (xd.mantissa == 0) return true;
    if (dd.exponent > xd.exponent) {
        // X = xm, D = dm * 10^k: X mod D == 0 needs D <= X.
        int k = dd.exponent - xd.exponent;
        if (k > 38) return false;
        u128 big = dd.mantissa;
        for (int i = 0; i < k; ++i) {
            if (big > xd.mantissa) return false;
            big *= 10;
        }
        return big <= xd.mantissa && xd.mantissa % static_cast<std::uint64_t>(big) == 0;
    }
    // X = xm * 10^k, D = dm: (xm mod dm) * (10^k mod dm) mod dm.
    int k = xd.exponent - dd.exponent;
    u128 r = static_cast<u128>(xd.mantissa % dd.mantissa) * pow10_mod(k, dd.mantissa) % dd.mantissa;
    return r == 0;
}

}  // namespace slipstream::json::schema::detail
