// load_config(): the application entry point that merges flags, environment, config file and defaults.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/config.h"
#include "app/config_error.h"
#include "app/registry.h"

namespace slipstream::app {

/// Builds the Config from, highest precedence first: the command line, SLIPSTREAM_* environment
/// variables, the config file named by --config or SLIPSTREAM_CONFIG (optional), the defaults.
///
/// argv[0] is the program name and is skipped; envp is a null-terminated "NAME=VALUE" array (the
/// third argument of main or `environ`) and may be null. Flags are `--name value`, `--name=value`;
/// booleans are `--name`, `--no-name`, `--name=true|false`. `-h`/`--help` and `--version` stop the
/// parse and set Config::action; the caller prints help_text()/version_text() and exits 0.
///
/// Throws ConfigError (a std::invalid_argument) with a message naming the source and the reason,
/// e.g. "--port: 70000 is out of range (0..65535)", "unknown option '--prot'",
/// "app.conf:3: unknown key 'max-body'". The caller prints it with usage_hint() and exits 2.
Config load_config(int argc, const char* const* argv, const char* const* envp);

/// The same with explicit sources: args without the program name, env as "NAME=VALUE" strings.
Config load_config(const std::vector<std::string>& args, const std::vector<std::string>& env);

/// The same over any registry (the Python CLI passes one built by make_config_registry()).
Config load_config(const Registry& registry, const std::vector<std::string>& args, const std::vector<std::string>& env);

}  // namespace slipstream::app
