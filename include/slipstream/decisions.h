// DecisionService: the learning decision service (capsules that decide, take delayed rewards and learn online) on
// any App, and replay_decisions(): its off-policy evaluation and promotion gate over an exported log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "slipstream/app.h"
#include "slipstream/rate_limit_store.h"

namespace slipstream {

/// Every count, size and time has a limit here with the server's defaults (the --decide-* flags).
struct DecisionsOptions {
    /// Where decisions, rewards, specs and model snapshots live: sqlite:///absolute/path.db,
    /// sqlite://relative/path.db or postgresql://... (shared by replicas). Required.
    std::string store_url;
    bool buffered_decisions = false;            // learner-mode decisions written behind too (rewards stay durable)
    std::size_t max_capsules = 10'000;          // capsules of the store (each model lives in memory)
    std::size_t max_actions = 64;               // actions of one spec
    std::size_t max_dimension = 256;            // a spec's features.dimension
    std::size_t max_features = 128;             // declared context features of one spec
    std::size_t max_spec_bytes = 64 * 1024;     // a spec document
    std::size_t max_model_bytes = 32 << 20;     // one capsule's model
    std::size_t max_context_bytes = 64 * 1024;  // a decision's context
    std::size_t max_batch = 100;                // requests of one batch call
    std::size_t shadow_queue = 10'000;          // write-behind decisions waiting; past it, dropped and counted
    std::int64_t shadow_flush_ms = 50;          // the longest a write-behind decision waits
    std::size_t shadow_batch = 256;             // write-behind decisions committed by one transaction
    std::size_t snapshot_every = 100;           // learned rewards between two model snapshots
    std::int64_t sweep_interval_ms = 1'000;     // how often overdue decisions get their default reward
    std::size_t max_page = 1'000;               // decisions in one page of GET .../decisions
    std::size_t max_evaluate = 10'000;          // logged decisions one evaluation replays
    std::size_t max_resamples = 1'000;          // bootstrap resamples of one evaluation
    std::size_t promote_min_samples = 100;      // the smallest sample a promotion may rest on
    std::size_t metrics_capsules = 1'000;       // capsules with their own /metrics series (0: none)
    bool metrics = true;                        // slipstream_decide_* series on /metrics
    /// Access per principal: a file of `<principal> <read|write|none> [tenant,...]` lines; empty: everyone gets
    /// `default_access` ("write", "read" or "none"). `read` decides and reads but never learns (403).
    std::string access_file;
    std::string default_access = "write";
    std::string decide_rate_limit;  // decisions per principal and period ("1000/s"); empty: none
    std::string reward_rate_limit;  // rewards per principal and period; empty: none
    std::uint64_t rate_limit_burst = 0;
    std::size_t rate_limit_max_keys = 100'000;
    /// The decision and reward buckets shared by every process (the server's `--rate-limit-store store`); null: each
    /// process counts on its own.
    std::shared_ptr<RateLimitStore> rate_limit_store;
};

/// The store (opened, its tables created, every model loaded) and the thread that gives overdue decisions their
/// default reward. Keep it until the App it is mounted on has stopped. Thread-safe.
class DecisionService {
  public:
    /// Blocking (reads every capsule's model). Throws std::invalid_argument for a bad option, access file or rate,
    /// std::runtime_error when the store cannot be opened.
    explicit DecisionService(DecisionsOptions options);
    ~DecisionService();  // close()
    DecisionService(const DecisionService&) = delete;
    DecisionService& operator=(const DecisionService&) = delete;

    /// Registers the routes under `prefix` + /v1/tenants/{tenant}/jobs/{job}/capsules/{capsule}/ (spec, decide,
    /// reward, batches, decisions, model, evaluate, promote; see src/agent/decide/README.md) and the metrics on
    /// `app`, before it starts; `prefix` is "" or "/path" without a final '/'. `openapi_path` non-empty: GET there
    /// serves the routes' OpenAPI 3.1 document. Returns that document. Several Apps may mount one service (one
    /// store); once per App: a second mount on the same App throws std::invalid_argument (a route or metric clash).
    std::string mount(App& app, std::string_view prefix = "", std::string_view openapi_path = "");
    /// Stops the sweeper, writes queued decisions and model snapshots, closes the store (blocking; idempotent).
    /// Call after the App stopped.
    void close();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct DecisionReplayOptions {
    std::size_t min_samples = 100;          // the promotion gate's sample floor
    std::size_t resamples = 200;            // bootstrap resamples (at most 100000)
    std::uint64_t seed = 1;                 // of the bootstrap
    std::size_t max_decisions = 1'000'000;  // closed decisions read at most
};

struct DecisionReplay {
    std::string report_json;           // POST .../evaluate's answer on the log, plus "open" and "gate"
    std::vector<std::string> reasons;  // why the gate fails; empty: it holds
    bool passed() const { return reasons.empty(); }
};

/// POST .../evaluate and .../promote's gate over exported decisions (GET .../decisions?format=jsonl lines, pages
/// concatenated in any order): `spec` the current spec (JSON or YAML, or GET .../spec's answer), `candidate` an
/// RFC 7396 patch onto it ("" : the spec itself). Throws std::invalid_argument naming the line or field.
DecisionReplay replay_decisions(std::string_view spec, std::string_view candidate, std::string_view log,
                                const DecisionReplayOptions& options = {});

}  // namespace slipstream
