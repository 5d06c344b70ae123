// Python-style rendering of JSON values for pydantic-compatible error messages.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "json/value.h"

namespace slipstream::json::schema::detail {

/// repr() of the Python value a JSON value becomes: 'a', 1, 0.5, True, None, [1, 'x'], {'k': 1}.
std::string py_repr(const json::Value& v);
/// A number as Python prints it (int: "5"; float: "0.5", "2.0", "1e+16").
std::string py_number(const json::Value& v);
/// A number as pydantic prints a constraint in a message (Rust's Display): int "5"; float "0" for 0.0,
/// "0.5", "100000000000000000000" for 1e20, "0.0000001" for 1e-7, "NaN", "inf". The ctx keeps the float.
std::string display_number(const json::Value& v);
/// pydantic's "expected" list: "'a'", "'a' or 'b'", "1, 2 or 'x'".
std::string py_expected(std::span<const json::Value> values);
/// "1 character", "3 characters".
std::string plural(std::uint64_t n, std::string_view noun);

}  // namespace slipstream::json::schema::detail
