// Pieces of the Prometheus text exposition format 0.0.4: escaping and number formatting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slipstream::metrics::detail {

/// Appends a label value with `\`, `"` and newline escaped as `\\`, `\"` and `\n`.
void append_label_value(std::string& out, std::string_view value);

/// Appends HELP text with `\` and newline escaped as `\\` and `\n` (quotes stay as they are).
void append_help(std::string& out, std::string_view help);

void append_uint(std::string& out, std::uint64_t value);
void append_int(std::string& out, std::int64_t value);

/// Shortest text that reads back as the same double; `+Inf`, `-Inf`, `NaN` for the special values.
void append_double(std::string& out, double value);

/// Appends value / divisor as an exact decimal ("0.00005" for 50000 / 10^9). `divisor` is a power of ten.
void append_scaled(std::string& out, std::uint64_t value, std::uint64_t divisor);

/// Appends `name` `suffix`, then `{labels}` when labels is not empty, then a space.
/// `labels` is the already escaped `a="x",b="y"` text of a child.
void append_sample_start(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels);

}  // namespace slipstream::metrics::detail
