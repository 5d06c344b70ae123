// RunSettings: how and where an application runs: listeners and log destinations.
#pragma once

#include <cstdint>
#include <string>

#include "base/log.h"

namespace slipstream::app {

/// Settings outside the engine's ServerOptions: listeners and log destinations.
struct RunSettings {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8000;
    /// Unix socket path; when set, the application listens there instead of host:port.
    std::string unix_path;

    base::LogLevel log_level = base::LogLevel::kInfo;
    /// The log's line shape: "auto" (coloured on a terminal, plain text otherwise), "text", "color", "json".
    std::string log_format = "auto";
    /// Where the access log goes ("-" is stdout); whether it is on, and the builtin route paths, are
    /// ServerOptions fields (the engine implements them).
    std::string access_log_path = "-";
};

}  // namespace slipstream::app
