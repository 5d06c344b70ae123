// DecideStore: capsules (versioned specs and their models in memory), decisions, rewards and the learning log on
// store::Database (SQLite or PostgreSQL).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "agent/decide/capsule.h"
#include "agent/decide/decide_error.h"
#include "agent/decide/decide_types.h"
#include "agent/decide/decision_writer.h"
#include "agent/sessions/transaction_runner.h"
#include "base/clock.h"
#include "store/database/database.h"

namespace slipstream::agent::decide {

template <typename T>
using DecideCallback = std::function<void(DecideResult<T>)>;

struct DecideStoreOptions {
    DecideLimits limits;
    /// false: decisions in learner and baselineExplore mode are answered after their COMMIT. true: every
    /// decision without an eventId is written behind like a shadow one (a crash loses the queued ones; rewards
    /// stay durable). Decisions with an eventId are always durable.
    bool buffered_decisions = false;
    /// Wall time of decisions, rewards and deadlines (epoch milliseconds); a ManualClock in tests.
    std::shared_ptr<const base::Clock> clock = std::make_shared<base::SystemClock>();
};

/// The INSERT of `rows` decisions (kDecisionColumnCount parameters each), written with $n placeholders.
std::string insert_decisions_sql(std::size_t rows);
inline constexpr std::size_t kDecisionColumnCount = 17;

/// Thread-safe. Operations answer once through their callback, on the database's thread (or at once on the
/// caller's for input refused before any statement, and for queued decisions; or on the writer's thread for a
/// reward that waited for its decision's flush). A spec change, a durable decision and a reward are answered
/// after their COMMIT. The model
/// of each capsule lives in memory: on open it is its newest snapshot plus the learning log after it.
class DecideStore : public std::enable_shared_from_this<DecideStore> {
  public:
    /// Creates the tables, loads every capsule and rebuilds its model (blocking: call at start-up). The database
    /// must be a file or a server.
    static base::Result<std::shared_ptr<DecideStore>> open(std::shared_ptr<store::Database> db,
                                                           DecideStoreOptions options = {});
    DecideStore(std::shared_ptr<store::Database> db, std::shared_ptr<sessions::TransactionRunner> runner,
                DecideStoreOptions options);
    ~DecideStore();
    DecideStore(const DecideStore&) = delete;
    DecideStore& operator=(const DecideStore&) = delete;

    /// Applies `patch_json` (RFC 7396) to the capsule's spec ({} for a new capsule) and stores the result as the
    /// next version. kBadSpec naming the field; kConflict when `expected_version` is not the stored one;
    /// kLimit "capsules". A change of actions, features or learner starts a new model generation.
    void put_spec(std::string principal, CapsuleRef ref, std::string patch_json,
                  std::optional<std::int64_t> expected_version, DecideCallback<SpecAnswer> done);
    DecideResult<SpecAnswer> get_spec(const CapsuleRef& ref);

    /// The model's choice for the request's context with a fresh seed, logged with its propensity, seed and
    /// ranking: answered after its COMMIT (learner and baselineExplore modes, any eventId) or queued for the
    /// writer (frozen mode; every mode with buffered_decisions). With an eventId seen before, the stored decision
    /// (replayed), or kConflict when the body differs. kInvalid naming the field (a context feature of the wrong
    /// type, no eligible action, a missing baseline); kLimit "context_bytes".
    void decide(std::string principal, CapsuleRef ref, DecideRequest request, DecideCallback<DecideAnswer> done);
    /// A reward for a decision: {"applied": false} for a duplicate or a closed decision.
    void reward(std::string principal, CapsuleRef ref, RewardRequest request, DecideCallback<JsonAnswer> done);
    /// Closes the decisions whose wait ran out (the default reward when none came; the sum with `sum`), at most
    /// 500; answers how many.
    void sweep(DecideCallback<std::int64_t> done);

    /// Off-policy evaluation of the candidate (the current spec with `request.patch_json` applied) and of the
    /// current spec on the logged closed decisions (policy_evaluation.h): IPS, SNIPS, DM and DR with bootstrap
    /// intervals, effective sample sizes and the logging policy's value. kBadSpec for a bad candidate.
    void evaluate(CapsuleRef ref, EvaluateRequest request, DecideCallback<JsonAnswer> done);
    /// evaluate(), then the candidate becomes the spec only when the gate holds: at least min_samples decisions,
    /// and the candidate's DR lower bound above the current policy's DR estimate; then the patch is written as
    /// the next spec version (expected: the version evaluated). Otherwise kConflict whose `members` carry the
    /// reasons and the evaluation for the problem body.
    void promote(std::string principal, CapsuleRef ref, EvaluateRequest request, DecideCallback<JsonAnswer> done);

    void list_decisions(CapsuleRef ref, DecisionQuery query, DecideCallback<JsonAnswer> done);
    void get_decision(CapsuleRef ref, std::string id, DecideCallback<JsonAnswer> done);
    /// The model's state with an ETag that changes with every learned reward and spec change.
    DecideResult<JsonAnswer> model(const CapsuleRef& ref);

    /// Writes queued shadow decisions and a snapshot of every model that learned since its last one (blocking;
    /// call once the routes stopped, never on a database thread).
    void close();

    /// The counters of at most `max` capsules (the first by tenant/job/name), for /metrics.
    std::vector<CapsuleStats> stats(std::size_t max);
    /// Shadow (and buffered) decisions dropped since start: a full queue or a failed flush.
    std::uint64_t write_lost() const;
    /// Decisions queued for the writer now.
    std::size_t write_queued() const;
    std::size_t capsule_count();

    const DecideLimits& limits() const { return options_.limits; }
    std::int64_t now_ms() const;

  private:
    struct Closing;    // a decision being closed with its reward (decide_rewards.cpp)
    struct RewardJob;  // a reward's transaction, step by step (decide_rewards.cpp)
    struct SpecJob;    // a spec write's transaction, step by step (decide_specs.cpp)

    std::shared_ptr<Capsule> find(const CapsuleRef& ref);
    /// After a spec's COMMIT: the capsule in memory takes it (created, with its model, when new).
    void install_spec(const CapsuleRef& ref, std::shared_ptr<const CapsuleSpec> spec, const std::string& json,
                      const SpecAnswer& answer, std::int64_t updates);
    /// Begins a write transaction; a failure to begin goes to `fail` as kUnavailable.
    void transaction(std::function<void(std::shared_ptr<sessions::Transaction>)> work,
                     std::function<void(DecideError)> fail);
    void decide_durable(std::string principal, std::shared_ptr<Capsule> capsule, std::shared_ptr<DecideRequest> request,
                        bool retry, DecideCallback<DecideAnswer> done);
    void reward_in(std::string principal, std::shared_ptr<Capsule> capsule, std::shared_ptr<RewardRequest> request,
                   double value, bool waited, DecideCallback<JsonAnswer> done);
    std::optional<DecideError> spec_next(SpecJob& job, const store::ResultSet& row);
    static void spec_write(const std::shared_ptr<sessions::Transaction>& tx, const std::shared_ptr<SpecJob>& job);
    static void reward_read_decision(const std::shared_ptr<sessions::Transaction>& tx,
                                     const std::shared_ptr<RewardJob>& job);
    static void reward_insert(const std::shared_ptr<sessions::Transaction>& tx, const std::shared_ptr<RewardJob>& job);
    /// Marks the decision closed with `c`'s reward and, when the capsule learns, logs the update under the next
    /// seq; `then` hears the seq (nullopt: nothing to learn) or the error. The caller commits.
    void close_decision(const std::shared_ptr<sessions::Transaction>& tx, const std::shared_ptr<Closing>& c,
                        std::function<void(DecideResult<std::optional<std::int64_t>>)> then);
    /// After the COMMIT of a closing: applies the update in seq order, snapshots when due.
    void learned(const std::shared_ptr<Closing>& c, std::optional<std::int64_t> seq);
    struct Overdue {
        std::string id;
        CapsuleRef ref;
    };
    /// The candidate's and the current spec's evaluations as JSON, with the figures promote() gates on.
    struct Evaluated;
    void run_evaluation(const CapsuleRef& ref, EvaluateRequest request,
                        std::function<void(DecideResult<std::shared_ptr<Evaluated>>)> done);
    void sweep_one(std::shared_ptr<std::vector<Overdue>> due, std::size_t next, std::int64_t closed,
                   DecideCallback<std::int64_t> done);
    /// One statement outside a transaction, written with $n placeholders.
    void query(std::string_view sql, store::Params params, store::Database::QueryCallback done);
    base::Status load();
    /// Writes the capsule's model as a snapshot (and drops older ones) when it learned snapshot_every updates.
    /// `finished` (optional) runs once it is written, failed, or was not due.
    void snapshot_if_due(const std::shared_ptr<Capsule>& capsule, bool force, std::function<void()> finished = {});

    std::shared_ptr<store::Database> db_;
    std::shared_ptr<sessions::TransactionRunner> runner_;
    DecideStoreOptions options_;
    std::unique_ptr<DecisionWriter> writer_;
    std::shared_mutex capsules_mutex_;
    std::unordered_map<std::string, std::shared_ptr<Capsule>> capsules_;
};

}  // namespace slipstream::agent::decide
