// Config: everything an application reads at start-up: engine limits plus how and where to run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/log.h"
#include "slipstream/server_options.h"

namespace slipstream::app {

/// Settings outside the engine's ServerOptions: listeners, logging, builtin routes.
struct RunSettings {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8000;
    /// Unix socket path; when set, the application listens there instead of host:port.
    std::string unix_path;

    base::LogLevel log_level = base::LogLevel::kInfo;
    bool access_log = true;
    /// "-" means stdout.
    std::string access_log_path = "-";

    // Builtin route paths; an empty string means the route is off ("off" on the command line).
    std::string health_path = "/health";
    std::string livez_path = "/livez";
    std::string readyz_path = "/readyz";
    std::string metrics_path = "/metrics";
};

/// What the command line asked for: run the server, or print help / version and exit 0.
enum class ConfigAction : unsigned char { kRun, kHelp, kVersion };

/// The result of load_config(): all sources merged (flags > environment > config file > defaults).
struct Config {
    ServerOptions server;
    RunSettings run;
    /// The config file that was read (--config / SLIPSTREAM_CONFIG); empty when none.
    std::string config_path;
    ConfigAction action = ConfigAction::kRun;
    /// SLIPSTREAM_* variables in the environment that name no option (likely typos); the
    /// application may log them. They are not errors because tools share the prefix.
    std::vector<std::string> unknown_env;
};

}  // namespace slipstream::app
