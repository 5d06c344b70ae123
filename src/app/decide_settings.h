// DecideSettings: the learning decision service (--decide and its limits), opened by open_decide(). Its store is the
// sessions' --store URL, or sqlite://<--data-dir>/decide.db.
#pragma once

#include <cstdint>
#include <string>

namespace slipstream::app {

/// Read like every other option (flags > SLIPSTREAM_* > config file > defaults). The defaults are
/// agent::decide::DecideLimits'.
struct DecideSettings {
    bool enabled = false;
    std::string decisions = "durable";    // or "buffered": learner-mode decisions written behind too // --decide: mount
                                          // /v1/tenants/{t}/jobs/{j}/capsules/{c}/...
    std::uint64_t max_capsules = 10'000;  // capsules in one store (each model lives in memory)
    std::uint64_t max_actions = 64;       // actions of one capsule
    std::uint64_t max_dimension = 256;    // features.dimension (dimension^2 numbers per action)
    std::uint64_t max_features = 128;     // declared context features of one capsule
    std::uint64_t max_spec_bytes = 64 * 1024;          // a spec document
    std::uint64_t max_model_bytes = 32 * 1024 * 1024;  // one capsule's model (two d x d matrices per arm)
    std::uint64_t max_context_bytes = 64 * 1024;       // a decision's context
    std::uint64_t max_batch = 100;                     // requests in one batch call
    std::uint64_t shadow_queue = 10'000;         // frozen-mode decisions waiting to be written; past it, counted lost
    std::uint32_t shadow_flush_ms = 50;          // the longest a queued shadow decision waits
    std::uint64_t shadow_batch = 256;            // queued shadow decisions written by one transaction
    std::uint64_t snapshot_every = 100;          // learned rewards between two model snapshots
    std::uint32_t sweep_interval_ms = 1'000;     // how often overdue decisions get their default reward
    std::uint64_t max_page = 1'000;              // decisions in one page
    std::uint64_t max_evaluate = 10'000;         // logged decisions one evaluation (or promotion) replays
    std::uint64_t max_resamples = 1'000;         // bootstrap resamples of one evaluation
    std::uint64_t promote_min_samples = 100;     // the smallest sample a promotion may rest on
    std::uint64_t metrics_capsules = 1'000;      // capsules with their own /metrics series
    std::string access_file;                     // --decide-access: read/write/none per principal and tenant
    std::string default_access = "write";        // principals the file does not list
    std::string decide_rate_limit;               // decisions per principal and period; empty: none
    std::string reward_rate_limit;               // rewards per principal and period; empty: none
    std::uint64_t rate_limit_burst = 0;          // 0: the rate's count
    std::string openapi_path = "/openapi.json";  // the routes' OpenAPI document; "off": not served
};

}  // namespace slipstream::app
