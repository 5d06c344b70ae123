// format_log_line: the default sink's three line shapes.
#include "base/log_line.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace slipstream::base {
namespace {

const char* color_of(LogLevel level) {
    switch (level) {
        case LogLevel::kDebug:
            return "\x1b[2m";  // dim
        case LogLevel::kInfo:
            return "\x1b[32m";  // green
        case LogLevel::kWarn:
            return "\x1b[33m";  // yellow
        default:
            return "\x1b[31m";  // red
    }
}

void append_json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out.push_back(static_cast<char>(c));
                }
        }
    }
    out.push_back('"');
}

}  // namespace

bool parse_log_format(std::string_view name, LogFormat* out) {
    if (name == "text") {
        *out = LogFormat::kText;
    } else if (name == "color") {
        *out = LogFormat::kColor;
    } else if (name == "json") {
        *out = LogFormat::kJson;
    } else if (name == "auto") {
        *out = ::isatty(STDERR_FILENO) != 0 ? LogFormat::kColor : LogFormat::kText;
    } else {
        return false;
    }
    return true;
}

std::string format_log_line(LogFormat format, LogLevel level, std::string_view message, std::int64_t unix_ms) {
    std::string line;
    line.reserve(message.size() + 64);
    switch (format) {
        case LogFormat::kText:
            line += log_level_name(level);
            line += ": ";
            line += message;
            break;
        case LogFormat::kColor:
            line += color_of(level);
            line += log_level_name(level);
            line += "\x1b[0m: ";
            line += message;
            break;
        case LogFormat::kJson: {
            const std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
            std::tm tm{};
            gmtime_r(&secs, &tm);
            char ts[96];
            std::snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                          tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(unix_ms % 1000));
            line += "{\"ts\":\"";
            line += ts;
            line += "\",\"level\":\"";
            line += log_level_name(level);
            line += "\",\"msg\":";
            append_json_string(line, message);
            line += '}';
            break;
        }
    }
    line += '\n';
    return line;
}

}  // namespace slipstream::base
