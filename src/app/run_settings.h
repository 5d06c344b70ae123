// RunSettings: how and where an application runs: listeners, logging, builtin routes.
#pragma once

#include <cstdint>
#include <string>

#include "base/log.h"

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

}  // namespace slipstream::app
