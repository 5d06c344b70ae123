// open_database(): the Database a Config names, with its readiness check on the App.
#pragma once

#include <memory>

#include "app/config.h"
#include "base/result.h"
#include "slipstream/app.h"
#include "store/database/database.h"

namespace slipstream::app {

/// The store's configuration for `url` with the pool and timeouts of `settings` (--database-*).
store::DatabaseConfig database_config(const DatabaseSettings& settings, std::string url);

/// Opens the database of `config.database` (null when no URL is set) and adds the readiness check "database"
/// to `app`: /readyz answers 503 while it is unreachable. kInvalidArgument for a bad URL or limit; SQLite's error
/// when its file cannot be used. Call from the route set-up, before listening; keep the result for the handlers.
base::Result<std::shared_ptr<store::Database>> open_database(const Config& config, App& app);

}  // namespace slipstream::app
