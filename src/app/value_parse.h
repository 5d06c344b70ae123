// Parsing and formatting of option values: booleans, integers, byte sizes (1m) and durations (10s).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::app {

/// "true", "false", "1", "0", "yes", "no", "on", "off". Error: "invalid boolean 'x' (expected true or false)".
base::Result<bool> parse_bool(std::string_view text);
/// Decimal digits only. Error: "invalid integer 'x'"; out_of_range when it does not fit 64 bits.
base::Result<std::uint64_t> parse_integer(std::string_view text);
/// Bytes with an optional 1024-based suffix k, m or g (either case): "512", "16k", "1m".
base::Result<std::uint64_t> parse_size(std::string_view text);
/// Milliseconds from a number and a unit ms, s, m or h: "250ms", "10s", "5m". A unit is required.
base::Result<std::uint64_t> parse_duration_ms(std::string_view text);

/// The shortest exact spelling: 8192 -> "8k", 1048576 -> "1m", 1000 -> "1000".
std::string format_size(std::uint64_t bytes);
/// The largest exact unit: 60000 -> "1m", 10000 -> "10s", 1500 -> "1500ms".
std::string format_duration_ms(std::uint64_t ms);

}  // namespace slipstream::app
