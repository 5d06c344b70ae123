// ConfigError: the exception for a bad flag, environment variable or config-file line.
#pragma once

#include <stdexcept>
#include <string>

namespace slipstream::app {

/// Thrown by the config loader with a message that names the source ("--port", "SLIPSTREAM_PORT",
/// "app.conf:3: port") and the reason. Callers print it with a usage hint and exit 2.
class ConfigError : public std::invalid_argument {
  public:
    explicit ConfigError(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace slipstream::app
