// Config: everything an application reads at start-up: engine limits plus how and where to run.
#pragma once

#include <string>
#include <vector>

#include "app/database_settings.h"
#include "app/decide_settings.h"
#include "app/llm_proxy_settings.h"
#include "app/model_settings.h"
#include "app/run_settings.h"
#include "app/session_settings.h"
#include "app/shared_state_settings.h"
#include "slipstream/server_options.h"

namespace slipstream::app {

/// What the command line asked for: run the server, or print help / version and exit 0.
enum class ConfigAction : unsigned char { kRun, kHelp, kVersion };

/// The result of load_config(): all sources merged (flags > environment > config file > defaults).
struct Config {
    ServerOptions server;
    RunSettings run;
    DatabaseSettings database;
    SessionSettings sessions;
    DecideSettings decide;
    ModelSettings model;
    LlmProxySettings llm_proxy;
    SharedStateSettings shared;
    /// The config file that was read (--config / SLIPSTREAM_CONFIG); empty when none.
    std::string config_path;
    ConfigAction action = ConfigAction::kRun;
    /// SLIPSTREAM_* variables in the environment that name no option (likely typos); the
    /// application may log them. They are not errors because tools share the prefix.
    std::vector<std::string> unknown_env;
};

}  // namespace slipstream::app
