// How the default log sink writes a message: plain text, coloured text for a terminal, or one JSON object per line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/log.h"

namespace slipstream::base {

enum class LogFormat : unsigned char { kText, kColor, kJson };

/// Parses "text", "color", "json", or "auto" (color when stderr is a terminal, else text). False when unknown.
bool parse_log_format(std::string_view name, LogFormat* out);

/// One line of the default sink, newline included. kText: "info: message"; kColor: the same with the level
/// coloured (ANSI); kJson: {"ts":"2026-12-07T10:58:18.123Z","level":"info","msg":"..."} (`unix_ms` the time).
std::string format_log_line(LogFormat format, LogLevel level, std::string_view message, std::int64_t unix_ms);

}  // namespace slipstream::base
