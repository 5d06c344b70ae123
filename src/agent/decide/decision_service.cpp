// DecisionService and replay_decisions(): the public API of the decision service over DecideStore, its routes and
// its sweeper.
#include "agent/decide/decision_service.h"

#include <mutex>
#include <stdexcept>

#include "agent/decide/decide_replay.h"
#include "agent/decide/decide_sweeper.h"
#include "store/database/database.h"

namespace slipstream {

namespace decide = agent::decide;

namespace agent::decide {

DecideStoreOptions store_options(const DecisionsOptions& o) {
    DecideStoreOptions s;
    DecideLimits& l = s.limits;
    l.spec.max_actions = o.max_actions;
    l.spec.max_feature_dim = o.max_dimension;
    l.spec.max_features = o.max_features;
    l.spec.max_spec_bytes = o.max_spec_bytes;
    l.spec.max_model_bytes = o.max_model_bytes;
    l.max_capsules = o.max_capsules;
    l.max_context_bytes = o.max_context_bytes;
    l.max_batch = o.max_batch;
    l.shadow_queue = o.shadow_queue;
    l.shadow_flush_ms = o.shadow_flush_ms;
    l.shadow_batch = o.shadow_batch;
    l.snapshot_every = o.snapshot_every;
    l.max_page = o.max_page;
    l.max_evaluate = o.max_evaluate;
    l.max_resamples = o.max_resamples;
    l.min_promote_samples = o.promote_min_samples;
    s.buffered_decisions = o.buffered_decisions;
    return s;
}

base::Result<DecideRoutesOptions> routes_options(const DecisionsOptions& o) {
    DecideRoutesOptions routes;
    routes.metrics = o.metrics;
    routes.metrics_capsules = o.metrics_capsules;
    AccessLevel fallback = AccessLevel::kWrite;
    if (!parse_access_level(o.default_access, fallback))
        return base::Status::invalid_argument("default_access must be write, read or none");
    if (!o.access_file.empty()) {
        SLIPSTREAM_ASSIGN_OR_RETURN(DecideAccess access, DecideAccess::load(o.access_file, fallback));
        routes.access = std::make_shared<const DecideAccess>(std::move(access));
    } else if (fallback != AccessLevel::kWrite) {
        routes.access = std::make_shared<const DecideAccess>(fallback);
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(routes.rate_limits, DecideRateLimits::make({.decide = o.decide_rate_limit,
                                                                            .reward = o.reward_rate_limit,
                                                                            .burst = o.rate_limit_burst,
                                                                            .max_keys = o.rate_limit_max_keys,
                                                                            .store = o.rate_limit_store}));
    return routes;
}

}  // namespace agent::decide

namespace {

void check_bounds(const DecisionsOptions& o) {
    auto need = [](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string("DecisionsOptions: ") + what);
    };
    need(!o.store_url.empty(), "store_url is required");
    need(o.max_capsules >= 1 && o.max_actions >= 1 && o.max_dimension >= 1 && o.max_features >= 1,
         "max_capsules, max_actions, max_dimension and max_features must be at least 1");
    need(o.max_spec_bytes >= 64 && o.max_model_bytes >= 1024 && o.max_context_bytes >= 16,
         "max_spec_bytes >= 64, max_model_bytes >= 1024, max_context_bytes >= 16");
    need(o.max_batch >= 1 && o.shadow_queue >= 1 && o.snapshot_every >= 1 && o.max_page >= 1 && o.max_evaluate >= 1,
         "max_batch, shadow_queue, snapshot_every, max_page and max_evaluate must be at least 1");
    need(o.shadow_flush_ms >= 1 && o.shadow_flush_ms <= 60'000, "shadow_flush_ms must be in 1..60000");
    need(o.shadow_batch >= 1 && o.shadow_batch <= 100'000, "shadow_batch must be in 1..100000");
    need(o.sweep_interval_ms >= 10 && o.sweep_interval_ms <= 3'600'000, "sweep_interval_ms must be in 10..3600000");
    need(o.max_resamples <= 100'000 && o.promote_min_samples >= 1, "max_resamples <= 100000, promote_min_samples >= 1");
}

}  // namespace

struct DecisionService::Impl {
    std::mutex mutex;
    std::shared_ptr<decide::DecideStore> store;
    std::unique_ptr<decide::DecideSweeper> sweeper;
    decide::DecideRoutesOptions routes;
    std::int64_t sweep_interval_ms = 1000;
};

DecisionService::DecisionService(DecisionsOptions options) : impl_(std::make_unique<Impl>()) {
    check_bounds(options);
    base::Result<decide::DecideRoutesOptions> routes = decide::routes_options(options);
    if (!routes.is_ok()) throw std::invalid_argument(routes.status().message());
    impl_->routes = std::move(routes).value();
    store::DatabaseConfig config;
    config.url = options.store_url;
    base::Result<std::unique_ptr<store::Database>> opened = store::Database::open(std::move(config));
    if (!opened.is_ok()) throw std::runtime_error("the decision store: " + opened.status().message());
    std::shared_ptr<store::Database> db(std::move(opened).value());
    base::Result<std::shared_ptr<decide::DecideStore>> store =
        decide::DecideStore::open(db, decide::store_options(options));
    if (!store.is_ok()) throw std::runtime_error("the decision store: " + store.status().message());
    impl_->store = std::move(store).value();
    impl_->sweeper = std::make_unique<decide::DecideSweeper>(impl_->store, options.sweep_interval_ms);
}

DecisionService::~DecisionService() {
    close();
}

std::string DecisionService::mount(App& app, std::string_view prefix, std::string_view openapi_path) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (!impl_->store) throw std::invalid_argument("the decision service is closed");
    if (!prefix.empty() && (prefix.front() != '/' || prefix.back() == '/'))
        throw std::invalid_argument("the prefix must be empty or start with '/' and not end with '/'");
    decide::DecideRoutesOptions routes = impl_->routes;
    routes.prefix = std::string(prefix);
    routes.openapi_path = std::string(openapi_path);
    std::string doc = decide::mount_decide_routes(app, impl_->store, std::move(routes));
    return doc;
}

void DecisionService::close() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->sweeper.reset();
    if (impl_->store) impl_->store->close();
    impl_->store.reset();
}

DecisionReplay replay_decisions(std::string_view spec, std::string_view candidate, std::string_view log,
                                const DecisionReplayOptions& options) {
    if (options.resamples > 100'000) throw std::invalid_argument("resamples must be at most 100000");
    if (options.max_decisions == 0) throw std::invalid_argument("max_decisions must be at least 1");
    base::Result<std::string> spec_json = decide::read_spec_document(spec);
    if (!spec_json.is_ok()) throw std::invalid_argument("the spec: " + spec_json.status().message());
    decide::ReplayOptions o;
    o.min_samples = options.min_samples;
    o.resamples = options.resamples;
    o.seed = options.seed;
    o.max_decisions = options.max_decisions;
    base::Result<decide::ReplayOutcome> outcome = decide::replay_log(*spec_json, candidate, log, o);
    if (!outcome.is_ok()) throw std::invalid_argument(outcome.status().message());
    return DecisionReplay{std::move(outcome->report_json), std::move(outcome->reasons)};
}

}  // namespace slipstream
