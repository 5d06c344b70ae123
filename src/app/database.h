// open_database(): the Database a Config names, with its readiness check on the App.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "app/config.h"
#include "base/result.h"
#include "slipstream/app.h"
#include "store/database/database.h"

namespace slipstream::app {

/// The store's configuration for `url` with the pool and timeouts of `settings` (--database-*).
store::DatabaseConfig database_config(const DatabaseSettings& settings, std::string url);

/// The URL of the SQLite file `file` in `data_dir` (--data-dir): "sqlite://" + its absolute path, the folder
/// created when missing; kIoError naming --data-dir when it cannot be.
base::Result<std::string> data_dir_store_url(const std::string& data_dir, std::string_view file);

/// `settings.store_url` when set, else sqlite://<absolute data_dir>/<file> with the folder created (kIoError when
/// it cannot be). The agent services' store (sessions.db, decide.db).
base::Result<std::string> agent_store_url(const SessionSettings& settings, std::string_view file);

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread, so that threads started after it (databases, sweepers,
/// flushers) inherit the mask and the stop signals reach the server's signalfd (a graceful stop) instead of one of
/// them. Called before an agent service starts its threads.
void block_stop_signals();

/// Opens the database of `config.database` (null when no URL is set) and adds the readiness check "database"
/// to `app`: /readyz answers 503 while it is unreachable. kInvalidArgument for a bad URL or limit; SQLite's error
/// when its file cannot be used. Call from the route set-up, before listening; keep the result for the handlers.
base::Result<std::shared_ptr<store::Database>> open_database(const Config& config, App& app);

}  // namespace slipstream::app
