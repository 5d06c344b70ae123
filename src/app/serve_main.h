// serve_main(): the whole main() of an application built on the C++ API: config, help, logs, listen, run.
#pragma once

#include <functional>

#include "app/config.h"
#include "slipstream/app.h"

namespace slipstream::app {

/// Registers an application's routes (called once, before listening).
using RouteSetup = std::function<void(slipstream::App&, const Config&)>;

/// Loads the configuration (flags > SLIPSTREAM_* environment > config file > defaults), answers --help and
/// --version, opens the access log, builds the App, calls `setup`, listens, prints "listening on HOST:PORT"
/// (or "listening on unix:PATH") and runs until SIGTERM/SIGINT. `name` prefixes error messages.
/// Returns the process exit code: 0 after a clean drain, 1 when the server cannot start, 2 on a config error.
int serve_main(int argc, char** argv, char** envp, const char* name, const RouteSetup& setup);

}  // namespace slipstream::app
