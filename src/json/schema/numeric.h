// Exact numeric comparisons and multipleOf across int64 / uint64 / double JSON numbers.
#pragma once

#include "json/value.h"

namespace slipstream::json::schema::detail {

/// Three-way comparison of two numbers without precision loss (int64 vs double compares the
/// mathematical values). Returns -1, 0, 1, or kUnordered when either is NaN.
constexpr int kUnordered = 2;
int compare_numbers(const json::Value& a, const json::Value& b);

/// True for integers and for finite doubles with no fractional part (JSON Schema "integer").
bool is_integral(const json::Value& v);

/// True when `x` is an integer multiple of `divisor` (> 0). Exact for integers; for decimals it
/// compares the shortest decimal forms of the two doubles (what the JSON text said), so
/// 0.0075 is a multiple of 0.0001 and 1e308 is not a multiple of 0.123456789.
bool is_multiple_of(const json::Value& x, const json::Value& divisor);

}  // namespace slipstream::json::schema::detail
