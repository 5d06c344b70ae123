// open_decide(): DecideSettings to a DecideStore, its routes, its sweeper and a readiness check.
#include "app/decide.h"

#include "agent/decide/decide_routes.h"
#include "app/database.h"

namespace slipstream::app {

namespace {

agent::decide::DecideLimits limits_of(const DecideSettings& d) {
    agent::decide::DecideLimits l;
    l.spec.max_actions = d.max_actions;
    l.spec.max_feature_dim = d.max_dimension;
    l.spec.max_features = d.max_features;
    l.spec.max_spec_bytes = d.max_spec_bytes;
    l.spec.max_model_bytes = d.max_model_bytes;
    l.max_capsules = d.max_capsules;
    l.max_context_bytes = d.max_context_bytes;
    l.max_batch = d.max_batch;
    l.shadow_queue = d.shadow_queue;
    l.shadow_flush_ms = d.shadow_flush_ms;
    l.snapshot_every = d.snapshot_every;
    l.max_page = d.max_page;
    l.max_evaluate = d.max_evaluate;
    l.max_resamples = d.max_resamples;
    l.min_promote_samples = d.promote_min_samples;
    return l;
}

// The routes' options: metrics, the OpenAPI path, access (--decide-access) and rate limits. A bad access file or
// rate is the error.
base::Result<agent::decide::DecideRoutesOptions> routes_of(const Config& config) {
    const DecideSettings& d = config.decide;
    agent::decide::DecideRoutesOptions routes;
    routes.metrics_capsules = d.metrics_capsules;
    routes.openapi_path = d.openapi_path == "off" ? "" : d.openapi_path;
    agent::decide::AccessLevel fallback = agent::decide::AccessLevel::kWrite;
    agent::decide::parse_access_level(d.default_access, fallback);
    if (!d.access_file.empty()) {
        SLIPSTREAM_ASSIGN_OR_RETURN(agent::decide::DecideAccess access,
                                    agent::decide::DecideAccess::load(d.access_file, fallback));
        routes.access = std::make_shared<const agent::decide::DecideAccess>(std::move(access));
    } else if (fallback != agent::decide::AccessLevel::kWrite) {
        routes.access = std::make_shared<const agent::decide::DecideAccess>(fallback);
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(routes.rate_limits,
                                agent::decide::DecideRateLimits::make({.decide = d.decide_rate_limit,
                                                                       .reward = d.reward_rate_limit,
                                                                       .burst = d.rate_limit_burst,
                                                                       .max_keys = config.server.rate_limit_max_keys}));
    return routes;
}

}  // namespace

Decide::~Decide() {
    sweeper.reset();
    if (store) store->close();
}

base::Result<std::unique_ptr<Decide>> open_decide(const Config& config, App& app) {
    const DecideSettings& d = config.decide;
    if (!d.enabled) return std::unique_ptr<Decide>();
    SLIPSTREAM_ASSIGN_OR_RETURN(agent::decide::DecideRoutesOptions routes, routes_of(config));
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string url, agent_store_url(config.sessions, "decide.db"));
    block_stop_signals();  // before the database's, the flusher's and the sweeper's threads start
    store::DatabaseConfig c = database_config(config.database, std::move(url));
    SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> opened, store::Database::open(std::move(c)));
    std::shared_ptr<store::Database> db(std::move(opened));
    agent::decide::DecideStoreOptions options;
    options.limits = limits_of(d);
    options.buffered_decisions = d.decisions == "buffered";
    auto decide = std::make_unique<Decide>();
    SLIPSTREAM_ASSIGN_OR_RETURN(decide->store, agent::decide::DecideStore::open(db, std::move(options)));
    agent::decide::mount_decide_routes(app, decide->store, routes);
    decide->sweeper = std::make_unique<agent::decide::DecideSweeper>(decide->store, d.sweep_interval_ms);
    app.readiness_check("decide", [db] { return db->ready(); });
    return decide;
}

}  // namespace slipstream::app
