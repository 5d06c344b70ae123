// open_sessions(): SessionSettings to a SessionStore, its routes, its sweeper and a readiness check.
#include "app/sessions.h"

#include "agent/sessions/session_routes.h"
#include "agent/sessions/session_service.h"
#include "app/database.h"

namespace slipstream::app {

Sessions::~Sessions() {
    sweeper.reset();
    if (store) store->close();  // buffered: what is queued is written before the database closes
}

base::Result<std::unique_ptr<Sessions>> open_sessions(const Config& config, App& app) {
    const SessionSettings& s = config.sessions;
    if (!s.enabled) return std::unique_ptr<Sessions>();
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string url, agent_store_url(s, "sessions.db"));
    // The database's threads, the sweeper and the flusher start here, before App::run() blocks the stop signals in
    // this thread: they inherit the mask, so SIGTERM reaches the server's signalfd (a graceful stop that closes the
    // store) instead of killing the process from one of them.
    block_stop_signals();
    // The pool and timeouts follow --database-*; the URL is the sessions' own.
    store::DatabaseConfig c = database_config(config.database, std::move(url));
    SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> opened, store::Database::open(std::move(c)));
    std::shared_ptr<store::Database> db(std::move(opened));

    SessionsOptions options;
    options.max_events = s.max_events;
    options.max_event_bytes = s.max_event_bytes;
    options.max_state_bytes = s.max_state_bytes;
    options.max_per_principal = s.max_per_principal;
    options.ttl_ms = s.ttl_ms;
    options.buffered = s.durability == "buffered";
    options.flush_ms = s.flush_ms;
    options.max_queued_events = s.max_queued_events;
    options.append_in_flight = s.append_in_flight;
    options.append_batch = s.append_batch;
    auto sessions = std::make_unique<Sessions>();
    SLIPSTREAM_ASSIGN_OR_RETURN(sessions->store,
                                agent::sessions::SessionStore::open(db, agent::sessions::store_options(options)));
    agent::sessions::SessionRoutesOptions routes;
    routes.openapi_path = s.openapi_path == "off" ? "" : s.openapi_path;
    agent::sessions::mount_session_routes(app, sessions->store, std::move(routes));
    sessions->sweeper = std::make_unique<agent::sessions::SessionSweeper>(sessions->store, s.sweep_interval_ms);
    app.readiness_check("sessions", [db] { return db->ready(); });
    return sessions;
}

}  // namespace slipstream::app
