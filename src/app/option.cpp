// Option: environment names, help titles, and parsing/formatting of values by kind.
#include "app/option.h"

#include "app/config.h"
#include "app/config_error.h"
#include "app/value_parse.h"

namespace slipstream::app {
namespace {

std::string format_number(OptionKind kind, std::uint64_t n) {
    switch (kind) {
        case OptionKind::kSize:
            return format_size(n);
        case OptionKind::kDuration:
            return format_duration_ms(n);
        default:
            return std::to_string(n);
    }
}

[[noreturn]] void fail(std::string_view where, const std::string& reason) {
    throw ConfigError(std::string(where) + ": " + reason);
}

std::uint64_t parse_number(const Option& option, std::string_view text, std::string_view where) {
    base::Result<std::uint64_t> n = option.kind == OptionKind::kSize       ? parse_size(text)
                                    : option.kind == OptionKind::kDuration ? parse_duration_ms(text)
                                                                           : parse_integer(text);
    std::string range = " is out of range (" + format_number(option.kind, option.min) + ".." +
                        format_number(option.kind, option.max) + ")";
    if (!n.is_ok()) {
        if (n.status().is_out_of_range()) fail(where, std::string(text) + range);
        fail(where, n.status().message());
    }
    if (*n < option.min || *n > option.max) fail(where, std::string(text) + range);
    return *n;
}

std::string parse_choice(const Option& option, std::string_view text, std::string_view where) {
    std::string list;
    for (const std::string& choice : option.choices) {
        if (choice == text) return choice;
        list += (list.empty() ? "" : ", ") + choice;
    }
    fail(where, "invalid value '" + std::string(text) + "' (expected one of " + list + ")");
}

}  // namespace

std::string_view option_group_title(OptionGroup group) {
    switch (group) {
        case OptionGroup::kGeneral:
            return "general";
        case OptionGroup::kListen:
            return "listen";
        case OptionGroup::kLimits:
            return "limits";
        case OptionGroup::kTimeouts:
            return "timeouts";
        case OptionGroup::kConnections:
            return "connections";
        case OptionGroup::kLogging:
            return "logging";
        case OptionGroup::kBuiltinRoutes:
            return "builtin routes";
        case OptionGroup::kCompression:
            return "compression and streaming";
        case OptionGroup::kTls:
            return "tls";
        case OptionGroup::kHttp2:
            return "http/2";
        case OptionGroup::kWebSocket:
            return "websocket";
        case OptionGroup::kCors:
            return "cors";
        case OptionGroup::kAccess:
            return "auth and rate limits";
        case OptionGroup::kDatabase:
            return "database";
        case OptionGroup::kSessions:
            return "agent sessions";
        case OptionGroup::kDecide:
            return "decision service";
        case OptionGroup::kModel:
            return "model server";
        case OptionGroup::kLlmProxy:
            return "llm proxy";
    }
    return "general";
}

std::string_view option_kind_name(OptionKind kind) {
    switch (kind) {
        case OptionKind::kBool:
            return "bool";
        case OptionKind::kInteger:
            return "integer";
        case OptionKind::kSize:
            return "size";
        case OptionKind::kDuration:
            return "duration";
        case OptionKind::kString:
            return "string";
        case OptionKind::kChoice:
            return "choice";
    }
    return "string";
}

std::string Option::env_name() const {
    std::string env = "SLIPSTREAM_";
    for (char c : name)
        env += c == '-' ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return env;
}

OptionValue parse_option_value(const Option& option, std::string_view text, std::string_view where) {
    switch (option.kind) {
        case OptionKind::kBool: {
            base::Result<bool> b = parse_bool(text);
            if (!b.is_ok()) fail(where, b.status().message());
            return *b;
        }
        case OptionKind::kInteger:
        case OptionKind::kSize:
        case OptionKind::kDuration:
            return parse_number(option, text, where);
        case OptionKind::kChoice:
            return parse_choice(option, text, where);
        case OptionKind::kString:
            break;
    }
    if (option.check) {
        std::string reason = option.check(text);
        if (!reason.empty()) fail(where, reason);
    }
    return std::string(text);
}

std::string format_option_value(const Option& option, const OptionValue& value) {
    if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const std::uint64_t* n = std::get_if<std::uint64_t>(&value)) return format_number(option.kind, *n);
    return std::get<std::string>(value);
}

std::string default_text(const Option& option) {
    return format_option_value(option, option.get(Config{}));
}

}  // namespace slipstream::app
