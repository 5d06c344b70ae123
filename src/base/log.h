// The logging interface: library code logs through a sink the application installs, never to stdout.
#pragma once

#include <functional>
#include <string_view>

namespace slipstream::base {

enum class LogLevel : unsigned char { kDebug, kInfo, kWarn, kError, kFatal, kOff };

/// Parses "debug", "info", "warn", "error", "fatal", "off". Returns false when the name is unknown.
bool parse_log_level(std::string_view name, LogLevel* out);
std::string_view log_level_name(LogLevel level);

/// Receives one formatted message at a time. Must be thread-safe and must not block for long.
using LogSink = std::function<void(LogLevel, std::string_view)>;

/// Installs the process's sink and minimum level (called once at start-up, before threads start).
/// The default sink writes "level: message" lines to stderr at kInfo and above.
void set_log_sink(LogSink sink, LogLevel min_level);
void set_log_level(LogLevel min_level);
/// The default sink's line shape (base/log_line.h's LogFormat: text, color, json); text unless set.
enum class LogFormat : unsigned char;
void set_log_format(LogFormat format);
bool log_enabled(LogLevel level);

/// Writes a message through the installed sink when its level is enabled. Thread-safe.
void log_message(LogLevel level, std::string_view message);

}  // namespace slipstream::base
