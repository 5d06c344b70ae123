// DecideStore::reward() and sweep(): rewards durable before they are acknowledged, decisions closed with their
// aggregated reward, and the learning log written under the capsule's next sequence number.
#include <mutex>

#include "agent/decide/decide_json.h"
#include "agent/decide/decide_rows.h"
#include "agent/decide/decide_store.h"
#include "agent/sessions/database_thread.h"
#include "agent/sessions/session_id.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/sql_text.h"
#include "base/log.h"

namespace slipstream::agent::decide {

using sessions::int_cell;

namespace {

constexpr std::int64_t kSweepBatch = 500;
constexpr const char* kFirstKey = "first";  // with `first` aggregation a decision has one reward, under this key

}  // namespace

struct DecideStore::Closing {
    std::shared_ptr<Capsule> capsule;
    std::string decision_id;
    std::int64_t generation = 0;
    std::size_t action = 0;
    std::string context;
    double reward = 0.0;
    std::string features;  // the request's action features (empty: the spec's)
};

void DecideStore::query(std::string_view sql, store::Params params, store::Database::QueryCallback done) {
    (void)db_->query(sessions::sql_for(db_->backend(), sql), std::move(params),
                     [done = std::move(done)](store::QueryResult r) {
                         sessions::mark_database_thread();
                         done(std::move(r));
                     });
}

void DecideStore::reward(std::string principal, CapsuleRef ref, RewardRequest request,
                         DecideCallback<JsonAnswer> done) {
    std::shared_ptr<Capsule> capsule = find(ref);
    if (!capsule) return done(DecideError::not_found("no such capsule"));
    std::variant<double, RewardFailure> shaped = 0.0;
    {
        std::lock_guard<std::mutex> lock(capsule->mutex);
        shaped = shape_reward(capsule->model->spec().reward, request.input);
    }
    if (auto* f = std::get_if<RewardFailure>(&shaped)) return done(DecideError::invalid(f->pointer, f->message));
    reward_in(std::move(principal), std::move(capsule), std::make_shared<RewardRequest>(std::move(request)),
              std::get<double>(shaped), false, std::move(done));
}

// One reward on its way through its transaction; each step runs after the previous statement's answer.
struct DecideStore::RewardJob {
    std::shared_ptr<DecideStore> store;
    std::string principal;
    std::shared_ptr<Capsule> capsule;
    std::shared_ptr<RewardRequest> request;
    double value = 0.0;
    bool waited = false;  // already waited once for the shadow writer's flush
    Aggregation aggregation = Aggregation::kFirst;
    std::string key;
    std::int64_t now = 0;
    DecideCallback<JsonAnswer> done;
    std::shared_ptr<Closing> closing;

    void answer(bool applied, double reward, bool closed, std::string_view reason) const {
        done(JsonAnswer{reward_json(request->decision_id, applied, reward, closed, reason), ""});
    }
    void fail(const base::Status& s) const { done(error_from_status(s)); }
};

void DecideStore::reward_in(std::string principal, std::shared_ptr<Capsule> capsule,
                            std::shared_ptr<RewardRequest> request, double value, bool waited,
                            DecideCallback<JsonAnswer> done) {
    auto job = std::make_shared<RewardJob>();
    job->store = shared_from_this();
    job->principal = std::move(principal);
    job->capsule = std::move(capsule);
    job->request = std::move(request);
    job->value = value;
    job->waited = waited;
    job->now = now_ms();
    job->done = std::move(done);
    {
        std::lock_guard<std::mutex> lock(job->capsule->mutex);
        job->aggregation = job->capsule->model->spec().reward.aggregation;
    }
    job->key = kFirstKey;
    if (job->aggregation == Aggregation::kSum) {
        if (!job->request->key.empty()) {
            job->key = job->request->key;
        } else {
            base::Result<std::string> fresh = sessions::new_session_id();
            if (!fresh.is_ok()) return job->done(DecideError::internal(fresh.status().to_string()));
            job->key = "auto:" + *fresh;
        }
    }
    transaction([job](std::shared_ptr<sessions::Transaction> tx) { reward_read_decision(tx, job); },
                [job](DecideError e) { job->done(std::move(e)); });
}

// Step 1: the decision, locked (a shadow one still queued: asked again once written); closed ones answer
// applied:false.
void DecideStore::reward_read_decision(const std::shared_ptr<sessions::Transaction>& tx,
                                       const std::shared_ptr<RewardJob>& job) {
    const CapsuleRef& ref = job->capsule->ref;
    const std::string& id = job->request->decision_id;
    // An UPDATE that changes nothing, for its row lock (PostgreSQL; SQLite has one writer): concurrent rewards of
    // one decision run one after the other, so the later ones see it closed or their key taken.
    tx->query(
        "UPDATE decide_decisions SET closed = closed WHERE id = $1 AND tenant = $2 AND job = $3 AND name = $4 "
        "RETURNING generation, action_index, context, closed, actions",
        {id, ref.tenant, ref.job, ref.name}, [tx, job](store::QueryResult d) {
            if (!d.is_ok()) return job->fail(d.status());
            DecideStore& self = *job->store;
            if (d->row_count() == 0) {
                if (!job->waited && self.writer_->pending(job->request->decision_id))
                    return self.writer_->after_flush([job] {
                        job->store->reward_in(job->principal, job->capsule, job->request, job->value, true, job->done);
                    });
                return job->done(DecideError::not_found("no such decision"));
            }
            if (int_cell(d.value(), 0, 3) != 0)
                return job->answer(false, job->value, true,
                                   job->aggregation == Aggregation::kFirst ? "duplicate: the decision has its reward"
                                                                           : "the decision is closed");
            job->closing =
                std::make_shared<Closing>(Closing{job->capsule, job->request->decision_id, int_cell(d.value(), 0, 0),
                                                  static_cast<std::size_t>(int_cell(d.value(), 0, 1)),
                                                  std::string(d->text(0, 2)), job->value, std::string(d->text(0, 4))});
            if (job->aggregation == Aggregation::kFirst) return reward_insert(tx, job);
            // sum: one reward per idempotency key.
            tx->query("SELECT value FROM decide_rewards WHERE decision_id = $1 AND reward_key = $2",
                      {job->request->decision_id, job->key}, [tx, job](store::QueryResult k) {
                          if (!k.is_ok()) return job->fail(k.status());
                          if (k->row_count() > 0)
                              return job->answer(false, double_cell(k.value(), 0, 0), false,
                                                 "duplicate: a reward with this idempotency key was applied");
                          reward_insert(tx, job);
                      });
        });
}

// Step 2: the reward row; then `first` closes the decision (and logs the update), `sum` adds to its total.
void DecideStore::reward_insert(const std::shared_ptr<sessions::Transaction>& tx,
                                const std::shared_ptr<RewardJob>& job) {
    const std::string& id = job->request->decision_id;
    tx->query(
        "INSERT INTO decide_rewards (decision_id, reward_key, value, body, principal, created_at) VALUES ($1, $2, $3, "
        "$4, $5, $6)",
        {id, job->key, job->value, job->request->request_json, job->principal, job->now},
        [tx, job](store::QueryResult r) {
            if (!r.is_ok()) return job->fail(r.status());
            if (job->aggregation == Aggregation::kSum) {
                return tx->query(
                    "UPDATE decide_decisions SET reward_total = reward_total + $2, reward_count = reward_count + 1 "
                    "WHERE id = $1",
                    {job->request->decision_id, job->value}, [tx, job](store::QueryResult u) {
                        if (!u.is_ok()) return job->fail(u.status());
                        tx->commit([job](base::Status s) {
                            if (!s.is_ok()) return job->fail(s);
                            job->store->learned(job->closing, std::nullopt);
                            job->answer(true, job->value, false, "");
                        });
                    });
            }
            job->store->close_decision(tx, job->closing, [tx, job](DecideResult<std::optional<std::int64_t>> seq) {
                if (!seq.is_ok()) {
                    if (seq.error().code == DecideErrorCode::kConflict)
                        return job->answer(false, job->value, true, "duplicate: the decision has its reward");
                    return job->done(seq.error());
                }
                tx->commit([job, seq](base::Status s) {
                    if (!s.is_ok()) return job->fail(s);
                    job->store->learned(job->closing, seq.value());
                    job->answer(true, job->value, true, "");
                });
            });
        });
}

void DecideStore::close_decision(const std::shared_ptr<sessions::Transaction>& tx, const std::shared_ptr<Closing>& c,
                                 std::function<void(DecideResult<std::optional<std::int64_t>>)> then) {
    tx->query(
        "UPDATE decide_decisions SET closed = 1, reward = $2 WHERE id = $1 AND closed = 0", {c->decision_id, c->reward},
        [tx, c, then](store::QueryResult r) {
            if (!r.is_ok()) return then(error_from_status(r.status()));
            if (r->affected_rows() == 0) return then(DecideError::conflict("the decision is closed"));
            bool learn = false;
            {
                std::lock_guard<std::mutex> lock(c->capsule->mutex);
                const CapsuleModel& m = *c->capsule->model;
                learn = m.spec().mode != Mode::kFrozen && m.generation() == c->generation;
            }
            if (!learn) return then(std::optional<std::int64_t>());
            const CapsuleRef& ref = c->capsule->ref;
            tx->query(
                "UPDATE decide_capsules SET updates = updates + 1 WHERE tenant = $1 AND job = $2 AND name = $3 "
                "RETURNING updates",
                {ref.tenant, ref.job, ref.name}, [tx, c, then](store::QueryResult u) {
                    if (!u.is_ok()) return then(error_from_status(u.status()));
                    if (u->row_count() == 0) return then(DecideError::not_found("no such capsule"));
                    const std::int64_t seq = int_cell(u.value(), 0, 0);
                    const CapsuleRef& ref = c->capsule->ref;
                    tx->query(
                        "INSERT INTO decide_updates (tenant, job, name, seq, generation, decision_id, reward) VALUES "
                        "($1, $2, $3, $4, $5, $6, $7)",
                        {ref.tenant, ref.job, ref.name, seq, c->generation, c->decision_id, c->reward},
                        [then, seq](store::QueryResult i) {
                            if (!i.is_ok()) return then(error_from_status(i.status()));
                            then(std::optional<std::int64_t>(seq));
                        });
                });
        });
}

void DecideStore::learned(const std::shared_ptr<Closing>& c, std::optional<std::int64_t> seq) {
    {
        std::lock_guard<std::mutex> lock(c->capsule->mutex);
        ++c->capsule->rewards;
        c->capsule->reward_sum += c->reward;
        if (seq) c->capsule->committed(*seq, LearnUpdate{c->generation, c->context, c->action, c->reward, c->features});
    }
    if (seq) snapshot_if_due(c->capsule, false);
}

void DecideStore::sweep(DecideCallback<std::int64_t> done) {
    auto self = shared_from_this();
    query(
        "SELECT id, tenant, job, name FROM decide_decisions WHERE closed = 0 AND deadline_at <= $1 ORDER BY "
        "deadline_at LIMIT $2",
        {now_ms(), kSweepBatch}, [self, done](store::QueryResult r) {
            if (!r.is_ok()) return done(error_from_status(r.status()));
            auto due = std::make_shared<std::vector<Overdue>>();
            for (std::size_t i = 0; i < r->row_count(); ++i)
                due->push_back(
                    {std::string(r->text(i, 0)),
                     CapsuleRef{std::string(r->text(i, 1)), std::string(r->text(i, 2)), std::string(r->text(i, 3))}});
            self->sweep_one(due, 0, 0, done);
        });
}

void DecideStore::sweep_one(std::shared_ptr<std::vector<Overdue>> due, std::size_t next, std::int64_t closed,
                            DecideCallback<std::int64_t> done) {
    if (next >= due->size()) return done(closed);
    const Overdue& o = (*due)[next];
    std::shared_ptr<Capsule> capsule = find(o.ref);
    auto self = shared_from_this();
    if (!capsule) {
        // A capsule that did not load (its stored spec is refused): its decisions close without a reward, so that
        // they never hold up the sweep of the others.
        return query(
            "UPDATE decide_decisions SET closed = 1 WHERE id = $1 AND closed = 0", {o.id},
            [self, due, next, closed, done](store::QueryResult) { self->sweep_one(due, next + 1, closed, done); });
    }
    auto skip = [self, due, next, closed, done](const DecideError& e) {
        base::log_message(base::LogLevel::kWarn, "decide: closing an overdue decision failed: " + e.detail);
        self->sweep_one(due, next + 1, closed, done);
    };
    transaction(
        [self, capsule, due, next, closed, done, skip](std::shared_ptr<sessions::Transaction> tx) {
            const std::string id = (*due)[next].id;
            tx->query(
                "SELECT generation, action_index, context, closed, reward_count, reward_total, actions FROM "
                "decide_decisions "
                "WHERE id = $1",
                {id}, [self, capsule, due, next, closed, done, skip, tx, id](store::QueryResult d) {
                    if (!d.is_ok()) return skip(error_from_status(d.status()));
                    if (d->row_count() == 0 || int_cell(d.value(), 0, 3) != 0)
                        return self->sweep_one(due, next + 1, closed, done);
                    double value = 0.0;
                    {
                        std::lock_guard<std::mutex> lock(capsule->mutex);
                        const RewardSpec& spec = capsule->model->spec().reward;
                        value = int_cell(d.value(), 0, 4) > 0 ? clamp_reward(spec, double_cell(d.value(), 0, 5))
                                                              : spec.default_reward;
                    }
                    auto c = std::make_shared<Closing>(Closing{
                        capsule, id, int_cell(d.value(), 0, 0), static_cast<std::size_t>(int_cell(d.value(), 0, 1)),
                        std::string(d->text(0, 2)), value, std::string(d->text(0, 6))});
                    self->close_decision(
                        tx, c,
                        [self, c, due, next, closed, done, skip, tx](DecideResult<std::optional<std::int64_t>> seq) {
                            if (!seq.is_ok()) {
                                // Closed meanwhile by its reward: nothing to do.
                                if (seq.error().code == DecideErrorCode::kConflict)
                                    return self->sweep_one(due, next + 1, closed, done);
                                return skip(seq.error());
                            }
                            tx->commit([self, c, due, next, closed, done, skip, seq](base::Status s) {
                                if (!s.is_ok()) return skip(error_from_status(s));
                                self->learned(c, seq.value());
                                self->sweep_one(due, next + 1, closed + 1, done);
                            });
                        });
                });
        },
        skip);
}

}  // namespace slipstream::agent::decide
