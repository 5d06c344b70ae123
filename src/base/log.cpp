// The process log sink and level filter.
#include "base/log.h"
#include "base/log_line.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>

namespace slipstream::base {
namespace {

std::atomic<LogFormat> g_format{LogFormat::kText};

void stderr_sink(LogLevel level, std::string_view message) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const std::string line = format_log_line(g_format.load(std::memory_order_relaxed), level, message,
                                             std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
    // One write() per line keeps lines whole across threads.
    ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
    (void)n;
}

LogSink& sink_slot() {
    static LogSink sink = stderr_sink;
    return sink;
}

std::atomic<LogLevel> g_min_level{LogLevel::kInfo};

}  // namespace

bool parse_log_level(std::string_view name, LogLevel* out) {
    static constexpr std::pair<std::string_view, LogLevel> kNames[] = {
        {"debug", LogLevel::kDebug},  {"info", LogLevel::kInfo},   {"warn", LogLevel::kWarn},
        {"warning", LogLevel::kWarn}, {"error", LogLevel::kError}, {"fatal", LogLevel::kFatal},
        {"off", LogLevel::kOff}};
    for (const auto& [text, level] : kNames) {
        if (text == name) {
            *out = level;
            return true;
        }
    }
    return false;
}

std::string_view log_level_name(LogLevel level) {
    switch (level) {
        case LogLevel::kDebug:
            return "debug";
        case LogLevel::kInfo:
            return "info";
        case LogLevel::kWarn:
            return "warn";
        case LogLevel::kError:
            return "error";
        case LogLevel::kFatal:
            return "fatal";
        case LogLevel::kOff:
            return "off";
    }
    return "unknown";
}

void set_log_sink(LogSink sink, LogLevel min_level) {
    sink_slot() = sink ? std::move(sink) : LogSink(stderr_sink);
    g_min_level.store(min_level, std::memory_order_relaxed);
}

void set_log_format(LogFormat format) {
    g_format.store(format, std::memory_order_relaxed);
}

void set_log_level(LogLevel min_level) {
    g_min_level.store(min_level, std::memory_order_relaxed);
}

bool log_enabled(LogLevel level) {
    return level != LogLevel::kOff && level >= g_min_level.load(std::memory_order_relaxed);
}

void log_message(LogLevel level, std::string_view message) {
    if (!log_enabled(level) && level != LogLevel::kFatal) return;
    sink_slot()(level, message);
}

}  // namespace slipstream::base
