// --help, --version and the usage hint printed after a config error.
#include "app/help.h"

#include <array>

#ifndef SLIPSTREAM_VERSION_STRING
#error "SLIPSTREAM_VERSION_STRING is defined by src/app/CMakeLists.txt"
#endif

namespace slipstream::app {
namespace {

constexpr std::size_t kHelpColumn = 38;

constexpr std::array<OptionGroup, 18> kGroups{
    OptionGroup::kGeneral,     OptionGroup::kListen,   OptionGroup::kLimits,        OptionGroup::kTimeouts,
    OptionGroup::kConnections, OptionGroup::kLogging,  OptionGroup::kBuiltinRoutes, OptionGroup::kCompression,
    OptionGroup::kTls,         OptionGroup::kHttp2,    OptionGroup::kWebSocket,     OptionGroup::kCors,
    OptionGroup::kAccess,      OptionGroup::kDatabase, OptionGroup::kSessions,      OptionGroup::kDecide,
    OptionGroup::kModel,       OptionGroup::kLlmProxy};

std::string_view base_name(std::string_view program) {
    std::size_t slash = program.rfind('/');
    return slash == std::string_view::npos ? program : program.substr(slash + 1);
}

// "  --port PORT" padded to the help column, then the help text.
void add_line(std::string& out, const std::string& left, std::string_view help) {
    out += "  " + left;
    std::size_t used = 2 + left.size();
    out += used + 2 <= kHelpColumn ? std::string(kHelpColumn - used, ' ') : "\n" + std::string(kHelpColumn, ' ');
    out += help;
    out += '\n';
}

std::string left_column(const Option& o) {
    if (o.kind == OptionKind::kBool) return "--[no-]" + o.name;
    std::string placeholder = o.value_name;
    if (o.kind == OptionKind::kChoice) {
        placeholder.clear();
        for (const std::string& c : o.choices)
            placeholder += (placeholder.empty() ? "" : "|") + c;
    }
    return o.flag() + " " + placeholder;
}

std::string details(const Option& o) {
    std::string def = default_text(o);
    std::string out = "default: " + (def.empty() ? std::string("\"\"") : def);
    bool ranged = o.kind == OptionKind::kInteger || o.kind == OptionKind::kSize || o.kind == OptionKind::kDuration;
    if (ranged) {
        out += ", range: " + format_option_value(o, OptionValue{o.min}) + ".." +
               format_option_value(o, OptionValue{o.max});
    }
    out += ", env: " + o.env_name();
    if (!o.in_file) out += " (not in a config file)";
    return out;
}

}  // namespace

std::string help_text(std::string_view program, const Registry& registry) {
    std::string out = "usage: " + std::string(base_name(program)) + " [OPTIONS]\n\n";
    out +=
        "Each option is also read from its SLIPSTREAM_* environment variable and from the config file\n"
        "(--config FILE: `key = value` lines, keys are the flag names without dashes). The command line\n"
        "wins over the environment, which wins over the file, which wins over the defaults.\n";
    for (OptionGroup group : kGroups) {
        out += "\n" + std::string(option_group_title(group)) + ":\n";
        if (group == OptionGroup::kGeneral) {
            add_line(out, "-h, --help", "show this help and exit");
            add_line(out, "--version", "show the version and exit");
        }
        for (const Option& o : registry.options()) {
            if (o.group != group) continue;
            add_line(out, left_column(o), o.help);
            add_line(out, "", details(o));
        }
    }
    out +=
        "\nSIZE is a byte count with an optional 1024-based suffix k, m or g (16k, 1m).\n"
        "DURATION is a whole number with a unit ms, s, m or h (250ms, 10s, 5m).\n"
        "A builtin route PATH of 'off' disables the route.\n";
    return out;
}

std::string help_text(std::string_view program) {
    return help_text(program, make_config_registry());
}

std::string_view slipstream_version() {
    return SLIPSTREAM_VERSION_STRING;
}

std::string version_text(std::string_view program) {
    return std::string(base_name(program)) + " (slipstream " + std::string(slipstream_version()) + ")\n";
}

std::string usage_hint(std::string_view program) {
    return "Try '" + std::string(base_name(program)) + " --help' for more information.\n";
}

}  // namespace slipstream::app
