// open_sessions(): the durable agent sessions a Config asks for (--sessions), mounted on the App.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "agent/sessions/session_store.h"
#include "agent/sessions/session_sweeper.h"
#include "app/config.h"
#include "base/result.h"
#include "slipstream/app.h"

namespace slipstream::app {

/// What keeps the sessions running: the store and its sweeper. Keep it until the App stopped; destroying it
/// stops the sweeper, then closes the store and its database.
struct Sessions {
    Sessions() = default;
    ~Sessions();  // stops the sweeper, writes what a buffered store queued, then closes the store
    Sessions(const Sessions&) = delete;
    Sessions& operator=(const Sessions&) = delete;
    std::shared_ptr<agent::sessions::SessionStore> store;
    std::unique_ptr<agent::sessions::SessionSweeper> sweeper;
};

/// Null when --sessions is off. Otherwise opens the store (`--store`, or sqlite://<data-dir>/sessions.db with
/// the folder created), applies its migrations, mounts the routes, starts the sweeper and adds the readiness
/// check "sessions" (/readyz answers 503 while the store is unreachable). Blocking: call from the route set-up,
/// before listening. The store must be reachable at start, since the migrations run then: its error otherwise
/// (an unreachable PostgreSQL server after --database-connect-timeout, a SQLite file that cannot be opened), or
/// kIoError for a data folder that cannot be created.
base::Result<std::unique_ptr<Sessions>> open_sessions(const Config& config, App& app);

}  // namespace slipstream::app
