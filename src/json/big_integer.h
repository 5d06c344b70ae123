// Exact arithmetic on integers beyond 64 bits kept as decimal text (Value kBigInt): compare, convert, divide.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace slipstream::json {

/// Most significant digits an integer may have: Python's default `sys.get_int_max_str_digits()`. Python
/// (json.loads, int(str)) and pydantic refuse longer integers.
inline constexpr std::size_t kMaxIntegerDigits = 4300;

/// The texts below are canonical: an optional '-', then digits without leading zeros (what
/// Value::big_integer() holds).

/// The nearest double (+-inf beyond the double range).
double big_integer_to_double(std::string_view text);

/// Three-way comparison (-1, 0, 1) of two canonical integer texts.
int compare_big_integers(std::string_view a, std::string_view b);

/// Three-way comparison of a canonical integer text with a double, exactly (no rounding). `d` must not be NaN.
int compare_big_integer_double(std::string_view text, double d);

/// The exact canonical decimal text of an integral, finite double (e.g. 1e30 -> "1000000000000000019884624838656").
std::string integer_text(double d);

/// |text| mod m, for m > 0.
std::uint64_t big_integer_mod(std::string_view text, std::uint64_t m);

/// True when |a| is a multiple of |b| (b nonzero). O(digits(a) * digits(b)): meant for schema divisors.
bool big_integer_divisible(std::string_view a, std::string_view b);

}  // namespace slipstream::json
