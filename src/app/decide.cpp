// open_decide(): DecideSettings to a DecideStore, its routes, its sweeper and a readiness check.
#include "app/decide.h"

#include "agent/decide/decide_routes.h"
#include "agent/decide/decision_service.h"
#include "app/database.h"

namespace slipstream::app {

namespace {

// The settings as the public options (the store URL comes from --store / --data-dir, the pool from --db-*).
DecisionsOptions options_of(const Config& config) {
    const DecideSettings& d = config.decide;
    DecisionsOptions o;
    o.buffered_decisions = d.decisions == "buffered";
    o.max_capsules = d.max_capsules;
    o.max_actions = d.max_actions;
    o.max_dimension = d.max_dimension;
    o.max_features = d.max_features;
    o.max_spec_bytes = d.max_spec_bytes;
    o.max_model_bytes = d.max_model_bytes;
    o.max_context_bytes = d.max_context_bytes;
    o.max_batch = d.max_batch;
    o.shadow_queue = d.shadow_queue;
    o.shadow_flush_ms = d.shadow_flush_ms;
    o.shadow_batch = d.shadow_batch;
    o.snapshot_every = d.snapshot_every;
    o.sweep_interval_ms = d.sweep_interval_ms;
    o.max_page = d.max_page;
    o.max_evaluate = d.max_evaluate;
    o.max_resamples = d.max_resamples;
    o.promote_min_samples = d.promote_min_samples;
    o.metrics_capsules = d.metrics_capsules;
    o.access_file = d.access_file;
    o.default_access = d.default_access;
    o.decide_rate_limit = d.decide_rate_limit;
    o.reward_rate_limit = d.reward_rate_limit;
    o.rate_limit_burst = d.rate_limit_burst;
    o.rate_limit_max_keys = config.server.rate_limit_max_keys;
    o.rate_limit_store = config.server.rate_limit_store;  // --rate-limit-store store: shared by every replica
    return o;
}

}  // namespace

Decide::~Decide() {
    sweeper.reset();
    if (store) store->close();
}

base::Result<std::unique_ptr<Decide>> open_decide(const Config& config, App& app) {
    const DecideSettings& d = config.decide;
    if (!d.enabled) return std::unique_ptr<Decide>();
    const DecisionsOptions o = options_of(config);
    SLIPSTREAM_ASSIGN_OR_RETURN(agent::decide::DecideRoutesOptions routes, agent::decide::routes_options(o));
    routes.openapi_path = d.openapi_path == "off" ? "" : d.openapi_path;
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string url, agent_store_url(config.sessions, "decide.db"));
    block_stop_signals();  // before the database's, the flusher's and the sweeper's threads start
    store::DatabaseConfig c = database_config(config.database, std::move(url));
    SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> opened, store::Database::open(std::move(c)));
    std::shared_ptr<store::Database> db(std::move(opened));
    agent::decide::DecideStoreOptions options = agent::decide::store_options(o);
    auto decide = std::make_unique<Decide>();
    SLIPSTREAM_ASSIGN_OR_RETURN(decide->store, agent::decide::DecideStore::open(db, std::move(options)));
    agent::decide::mount_decide_routes(app, decide->store, routes);
    decide->sweeper = std::make_unique<agent::decide::DecideSweeper>(decide->store, d.sweep_interval_ms);
    app.readiness_check("decide", [db] { return db->ready(); });
    return decide;
}

}  // namespace slipstream::app
