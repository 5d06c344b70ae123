// --help, --version and the usage hint printed after a config error.
#pragma once

#include <string>
#include <string_view>

#include "app/registry.h"

namespace slipstream::app {

/// Every option grouped (general, listen, limits, timeouts, connections, logging, builtin routes)
/// with its flag, help, default, range and environment name. `program` may be a path; its last
/// component is shown. Ends with a newline.
std::string help_text(std::string_view program);
std::string help_text(std::string_view program, const Registry& registry);

/// "<program> (slipstream 0.1.0)\n".
std::string version_text(std::string_view program);
/// The engine version, from the CMake project version: "0.1.0".
std::string_view slipstream_version();

/// "Try '<program> --help' for more information.\n", printed after a ConfigError message.
std::string usage_hint(std::string_view program);

}  // namespace slipstream::app
