// load_config(): the application entry point that merges flags, environment, config file and defaults.
#include "app/load_config.h"

#include <optional>

#include "app/assignment.h"
#include "app/config_file.h"

namespace slipstream::app {
namespace {

constexpr std::string_view kEnvPrefix = "SLIPSTREAM_";

struct CommandLine {
    std::vector<Assignment> assignments;
    ConfigAction action = ConfigAction::kRun;
};

// Turns one "--name[=value]" (and maybe the next argument) into an assignment.
Assignment parse_flag(const Registry& registry, const std::vector<std::string>& args, std::size_t* i) {
    std::string_view arg = args[*i];
    std::size_t eq = arg.find('=');
    std::string_view name = arg.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2);
    std::optional<std::string> value;
    if (eq != std::string_view::npos) value = std::string(arg.substr(eq + 1));
    std::string flag = "--" + std::string(name);

    if (const Option* option = registry.find(name)) {
        if (option->kind == OptionKind::kBool) return {option, value.value_or("true"), flag};
        if (!value) {
            if (*i + 1 >= args.size()) throw ConfigError("option '" + flag + "' needs a value");
            value = args[++*i];
        }
        return {option, std::move(*value), flag};
    }
    if (name.substr(0, 3) == "no-") {
        const Option* option = registry.find(name.substr(3));
        if (option != nullptr && option->kind == OptionKind::kBool) {
            if (value) throw ConfigError("option '" + flag + "' takes no value");
            return {option, "false", flag};
        }
    }
    throw ConfigError("unknown option '" + flag + "'");
}

CommandLine parse_command_line(const Registry& registry, const std::vector<std::string>& args) {
    CommandLine out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "-h" || arg == "--help") {
            out.action = ConfigAction::kHelp;
            return out;
        }
        if (arg == "--version") {
            out.action = ConfigAction::kVersion;
            return out;
        }
        if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
            out.assignments.push_back(parse_flag(registry, args, &i));
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw ConfigError("unknown option '" + arg + "'");
        } else {
            throw ConfigError("unexpected argument '" + arg + "'");
        }
    }
    return out;
}

std::vector<Assignment> parse_environment(const Registry& registry, const std::vector<std::string>& env,
                                          std::vector<std::string>* unknown) {
    std::vector<Assignment> out;
    for (const std::string& entry : env) {
        if (entry.compare(0, kEnvPrefix.size(), kEnvPrefix) != 0) continue;
        std::size_t eq = entry.find('=');
        if (eq == std::string::npos) continue;
        std::string name = entry.substr(0, eq);
        if (const Option* option = registry.find_env(name)) {
            out.push_back({option, entry.substr(eq + 1), name});
        } else {
            unknown->push_back(std::move(name));
        }
    }
    return out;
}

// The config file named by the last --config flag, else by SLIPSTREAM_CONFIG; empty when none.
std::string config_path(const std::vector<Assignment>& flags, const std::vector<Assignment>& env) {
    for (const auto* source : {&flags, &env})
        for (auto it = source->rbegin(); it != source->rend(); ++it)
            if (it->option->name == "config") return it->text;
    return {};
}

void apply_all(const std::vector<Assignment>& assignments, Config& config) {
    for (const Assignment& a : assignments)
        a.option->set(config, parse_option_value(*a.option, a.text, a.where));
}

}  // namespace

Config load_config(const Registry& registry, const std::vector<std::string>& args,
                   const std::vector<std::string>& env) {
    Config config;
    CommandLine command_line = parse_command_line(registry, args);
    if (command_line.action != ConfigAction::kRun) {
        config.action = command_line.action;
        return config;
    }
    std::vector<Assignment> from_env = parse_environment(registry, env, &config.unknown_env);
    std::string path = config_path(command_line.assignments, from_env);

    // Lowest precedence first, so later sources overwrite earlier ones.
    if (!path.empty()) apply_all(read_config_file(path, registry), config);
    apply_all(from_env, config);
    apply_all(command_line.assignments, config);
    return config;
}

Config load_config(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    return load_config(make_config_registry(), args, env);
}

Config load_config(int argc, const char* const* argv, const char* const* envp) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i)
        args.emplace_back(argv[i]);
    std::vector<std::string> env;
    for (const char* const* e = envp; e != nullptr && *e != nullptr; ++e)
        env.emplace_back(*e);
    return load_config(args, env);
}

}  // namespace slipstream::app
