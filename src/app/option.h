// Option: one configuration knob: its flag, environment name, type, range, help and accessors.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace slipstream::app {

struct Config;

/// How an option's text is parsed and shown.
enum class OptionKind : unsigned char {
    kBool,      // --flag, --no-flag, --flag=true|false
    kInteger,   // decimal, within [min, max]
    kSize,      // bytes, suffix k/m/g (1024-based), within [min, max]
    kDuration,  // milliseconds, unit ms/s/m/h required, within [min, max]
    kString,    // any text, checked by Option::check when set
    kChoice,    // one of Option::choices
};

/// Where an option is listed in --help, in this order.
enum class OptionGroup : unsigned char {
    kGeneral,
    kListen,
    kLimits,
    kTimeouts,
    kConnections,
    kLogging,
    kBuiltinRoutes,
    kCompression,  // response compression, compressed request bodies, Server-Sent Events
    kTls,          // certificates, mTLS, handshake timeout
    kHttp2,        // HTTP/2 settings and flood defences
    kWebSocket,    // WebSocket message, frame and queue limits, pings
    kCors,         // cross-origin requests (preflights, Access-Control-* fields)
    kAccess,       // authentication (API keys, JWTs) and per-principal rate limits
    kDatabase,     // the application's database and its pool
    kSessions,     // durable agent sessions: their store, limits and lifetime
    kDecide,       // the learning decision service: its limits (its store is the sessions')
    kModel,        // the OpenAI-compatible model server: the model file, KV cache, scheduler
    kLlmProxy,     // the validated LLM proxy route: its upstream, schema and stream format
};

std::string_view option_group_title(OptionGroup group);
std::string_view option_kind_name(OptionKind kind);

/// A parsed value: bool for kBool, a number for kInteger/kSize/kDuration (bytes, milliseconds),
/// text for kString/kChoice.
using OptionValue = std::variant<bool, std::uint64_t, std::string>;

/// One knob. Registered once in config_options.cpp; everything else (flags, environment, config
/// file, --help, the Python CLI) reads it from the Registry.
struct Option {
    std::string name;  // flag name without dashes, also the config-file key: "max-body-bytes"
    OptionKind kind = OptionKind::kString;
    OptionGroup group = OptionGroup::kGeneral;
    std::string value_name;  // placeholder in --help: "N", "SIZE", "PATH"
    std::string help;
    std::uint64_t min = 0;
    std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    std::vector<std::string> choices;  // kChoice
    /// kString only: returns an error reason for a bad value, or "" when the value is fine.
    std::function<std::string(std::string_view)> check;
    /// False for options that only make sense outside a config file (--config itself).
    bool in_file = true;
    /// Store a parsed value into the config / read it back. Both are required.
    std::function<void(Config&, const OptionValue&)> set;
    std::function<OptionValue(const Config&)> get;

    /// "--max-body-bytes".
    std::string flag() const { return "--" + name; }
    /// "SLIPSTREAM_MAX_BODY_BYTES".
    std::string env_name() const;
};

/// Parses text for an option: type, suffix, range, choices and check. Throws ConfigError whose message
/// is "<where>: <reason>", e.g. "--port: 70000 is out of range (0..65535)".
OptionValue parse_option_value(const Option& option, std::string_view text, std::string_view where);
/// The value as it would be written on the command line: "1m", "10s", "true", "/health".
std::string format_option_value(const Option& option, const OptionValue& value);
/// The option's value in a default-constructed Config, formatted: what --help shows as the default.
std::string default_text(const Option& option);

}  // namespace slipstream::app
