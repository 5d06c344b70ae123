// DecideStore: opening (tables, capsules, models rebuilt from snapshots and the learning log), specs and models.
#include "agent/decide/decide_store.h"
#include "agent/decide/decide_rows.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "agent/decide/decide_json.h"
#include "agent/decide/decide_schema.h"
#include "agent/sessions/database_thread.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/sql_text.h"
#include "base/arena.h"
#include "base/log.h"
#include "json/parse.h"

namespace slipstream::agent::decide {

using sessions::int_cell;
using sessions::text_cell;

namespace {

base::Result<store::ResultSet> run_blocking(store::Database& db, std::string_view sql, store::Params params) {
    std::promise<store::QueryResult> done;
    (void)db.query(sessions::sql_for(db.backend(), sql), std::move(params),
                   [&done](store::QueryResult r) { done.set_value(std::move(r)); });
    store::QueryResult r = done.get_future().get();
    if (!r.is_ok()) return r.status();
    return std::move(r).value();
}

// Waits (up to 2 s) until only the caller holds the runner, so that its connection closes here.
void wait_until_unused(const std::shared_ptr<sessions::TransactionRunner>& runner) {
    for (int i = 0; i < 200 && runner.use_count() > 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

std::string insert_decisions_sql(std::size_t rows) {
    std::string sql =
        "INSERT INTO decide_decisions (id, tenant, job, name, event_id, request_hash, principal, generation, "
        "action_index, context, answer, created_at, deadline_at, closed, reward_total, reward_count, actions) VALUES ";
    for (std::size_t r = 0; r < rows; ++r) {
        sql += r == 0 ? "(" : ", (";
        for (std::size_t c = 0; c < kDecisionColumnCount; ++c) {
            if (c > 0) sql += ", ";
            sql += "$" + std::to_string(r * kDecisionColumnCount + c + 1);
        }
        sql += ")";
    }
    return sql;
}

base::Result<std::shared_ptr<DecideStore>> DecideStore::open(std::shared_ptr<store::Database> db,
                                                             DecideStoreOptions options) {
    if (!db) return base::Status::invalid_argument("the decision store needs a database");
    sessions::ClosingOnThisThread closing;
    SLIPSTREAM_RETURN_IF_ERROR(migrate_decide_schema(*db));
    SLIPSTREAM_ASSIGN_OR_RETURN(std::shared_ptr<sessions::TransactionRunner> runner,
                                sessions::TransactionRunner::open(db));
    auto opened = std::make_shared<DecideStore>(std::move(db), std::move(runner), std::move(options));
    SLIPSTREAM_RETURN_IF_ERROR(opened->load());
    opened->writer_->start();
    return opened;
}

DecideStore::DecideStore(std::shared_ptr<store::Database> db, std::shared_ptr<sessions::TransactionRunner> runner,
                         DecideStoreOptions options)
    : db_(std::move(db)), runner_(std::move(runner)), options_(std::move(options)) {
    writer_ = std::make_unique<DecisionWriter>(runner_, options_.limits.shadow_queue, options_.limits.shadow_flush_ms,
                                               options_.limits.shadow_batch);
}

DecideStore::~DecideStore() {
    writer_.reset();  // an owner that did not close() loses what is still queued
    if (sessions::on_database_thread()) {
        // The Database's destructor joins this thread: close it on one of its own.
        std::thread([db = std::move(db_), runner = std::move(runner_)]() mutable {
            sessions::ClosingOnThisThread closing;
            runner.reset();
            db.reset();
        }).detach();
        return;
    }
    wait_until_unused(runner_);
    sessions::ClosingOnThisThread closing;
    runner_.reset();
    db_.reset();
}

std::int64_t DecideStore::now_ms() const {
    return options_.clock->wall_now() / 1'000'000;
}

std::shared_ptr<Capsule> DecideStore::find(const CapsuleRef& ref) {
    std::shared_lock<std::shared_mutex> lock(capsules_mutex_);
    auto it = capsules_.find(ref.key());
    return it == capsules_.end() ? nullptr : it->second;
}

void DecideStore::transaction(std::function<void(std::shared_ptr<sessions::Transaction>)> work,
                              std::function<void(DecideError)> fail) {
    runner_->run(
        [work = std::move(work), fail = std::move(fail)](base::Result<std::shared_ptr<sessions::Transaction>> begun) {
            if (!begun.is_ok()) return fail(DecideError::unavailable(begun.status().to_string()));
            work(std::move(begun).value());
        });
}

base::Status DecideStore::load() {
    SLIPSTREAM_ASSIGN_OR_RETURN(
        store::ResultSet rows,
        run_blocking(*db_, "SELECT tenant, job, name, spec, spec_version, generation, updates FROM decide_capsules",
                     {}));
    for (std::size_t i = 0; i < rows.row_count(); ++i) {
        auto capsule =
            std::make_shared<Capsule>(CapsuleRef{text_cell(rows, i, 0), text_cell(rows, i, 1), text_cell(rows, i, 2)});
        const CapsuleRef& ref = capsule->ref;
        SpecResult parsed = parse_capsule_spec(text_cell(rows, i, 3), options_.limits.spec);
        if (!std::holds_alternative<CapsuleSpec>(parsed)) {
            // Limits made stricter since it was stored: the capsule stays unloaded until its spec is replaced.
            base::log_message(base::LogLevel::kError, "decide: capsule " + ref.key() + " has a spec this server " +
                                                          "refuses at " + std::get<SpecError>(parsed).pointer + ": " +
                                                          std::get<SpecError>(parsed).message);
            continue;
        }
        const std::int64_t generation = int_cell(rows, i, 5);
        capsule->set_spec(std::make_shared<const CapsuleSpec>(std::move(std::get<CapsuleSpec>(parsed))),
                          text_cell(rows, i, 3), int_cell(rows, i, 4), generation, options_.limits.spec);
        const store::Params key{ref.tenant, ref.job, ref.name, generation};
        SLIPSTREAM_ASSIGN_OR_RETURN(
            store::ResultSet snap,
            run_blocking(*db_,
                         "SELECT seq, model FROM decide_snapshots WHERE tenant = $1 AND job = $2 AND name = $3 AND "
                         "generation = $4 ORDER BY seq DESC LIMIT 1",
                         key));
        std::int64_t after = 0;
        if (snap.row_count() > 0) {
            base::Status restored = capsule->model->restore(text_cell(snap, 0, 1));
            if (restored.is_ok()) {
                after = int_cell(snap, 0, 0);
            } else {
                base::log_message(base::LogLevel::kWarn,
                                  "decide: snapshot of " + ref.key() +
                                      " ignored (the whole log is replayed): " + restored.to_string());
            }
        }
        store::Params replay = key;
        replay.emplace_back(after);
        SLIPSTREAM_ASSIGN_OR_RETURN(
            store::ResultSet updates,
            run_blocking(*db_,
                         "SELECT u.seq, u.reward, d.context, d.action_index, d.actions FROM decide_updates u JOIN "
                         "decide_decisions d ON d.id = u.decision_id WHERE u.tenant = $1 AND u.job = $2 AND "
                         "u.name = $3 AND u.generation = $4 AND u.seq > $5 ORDER BY u.seq",
                         std::move(replay)));
        for (std::size_t u = 0; u < updates.row_count(); ++u) {
            base::Arena arena;
            base::Result<const json::Value*> context = json::parse(updates.text(u, 2), arena);
            if (!context.is_ok()) continue;
            ActionFeatures given;
            std::string error;
            if (!parse_action_features(updates.text(u, 4), options_.limits.spec, given, &error)) continue;
            base::Status s = capsule->model->learn(*context.value(), static_cast<std::size_t>(int_cell(updates, u, 3)),
                                                   double_cell(updates, u, 1), int_cell(updates, u, 0), &given);
            if (!s.is_ok())
                base::log_message(base::LogLevel::kWarn, "decide: replay of " + ref.key() + ": " + s.to_string());
        }
        capsule->applied_seq = int_cell(rows, i, 6);
        capsule->since_snapshot = updates.row_count();
        capsules_.emplace(ref.key(), std::move(capsule));
    }
    return base::Status::ok();
}

void DecideStore::snapshot_if_due(const std::shared_ptr<Capsule>& capsule, bool force, std::function<void()> finished) {
    if (!finished) finished = [] {};
    std::optional<CapsuleModel> copy;
    {
        std::lock_guard<std::mutex> lock(capsule->mutex);
        if (!capsule->model || capsule->since_snapshot == 0) return finished();
        if (!force && capsule->since_snapshot < options_.limits.snapshot_every) return finished();
        capsule->since_snapshot = 0;
        copy.emplace(*capsule->model);  // a copy of the arms; encoded below, without holding decisions up
    }
    const std::string model = copy->snapshot();
    const std::int64_t generation = copy->generation();
    const std::int64_t seq = copy->version();
    copy.reset();
    const CapsuleRef ref = capsule->ref;
    const std::int64_t now = now_ms();
    auto failed = [ref, finished](const DecideError& e) {
        base::log_message(base::LogLevel::kWarn, "decide: snapshot of " + ref.key() + " not written: " + e.detail);
        finished();
    };
    transaction(
        [ref, model = std::move(model), generation, seq, now, failed,
         finished](std::shared_ptr<sessions::Transaction> tx) {
            tx->query("DELETE FROM decide_snapshots WHERE tenant = $1 AND job = $2 AND name = $3",
                      {ref.tenant, ref.job, ref.name},
                      [tx, ref, model, generation, seq, now, failed, finished](store::QueryResult r) {
                          if (!r.is_ok()) return failed(DecideError::internal(r.status().to_string()));
                          tx->query(
                              "INSERT INTO decide_snapshots (tenant, job, name, generation, seq, model, "
                              "created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                              {ref.tenant, ref.job, ref.name, generation, seq, model, now},
                              [tx, failed, finished](store::QueryResult w) {
                                  if (!w.is_ok()) return failed(DecideError::internal(w.status().to_string()));
                                  tx->commit([failed, finished](base::Status s) {
                                      if (!s.is_ok()) return failed(DecideError::internal(s.to_string()));
                                      finished();
                                  });
                              });
                      });
        },
        failed);
}

void DecideStore::close() {
    writer_->stop();
    std::vector<std::shared_ptr<Capsule>> all;
    {
        std::shared_lock<std::shared_mutex> lock(capsules_mutex_);
        for (auto& [key, capsule] : capsules_)
            all.push_back(capsule);
    }
    // Each snapshot is a transaction; wait for all of them.
    auto left = std::make_shared<std::atomic<std::size_t>>(all.size());
    auto all_done = std::make_shared<std::promise<void>>();
    if (all.empty()) all_done->set_value();
    for (const auto& capsule : all)
        snapshot_if_due(capsule, true, [left, all_done] {
            if (left->fetch_sub(1) == 1) all_done->set_value();
        });
    all_done->get_future().wait();
}

DecideResult<SpecAnswer> DecideStore::get_spec(const CapsuleRef& ref) {
    std::shared_ptr<Capsule> capsule = find(ref);
    if (!capsule) return DecideError::not_found("no such capsule");
    std::lock_guard<std::mutex> lock(capsule->mutex);
    return SpecAnswer{capsule->spec_json, capsule->spec_version, capsule->model->generation(), false};
}

DecideResult<JsonAnswer> DecideStore::model(const CapsuleRef& ref) {
    std::shared_ptr<Capsule> capsule = find(ref);
    if (!capsule) return DecideError::not_found("no such capsule");
    std::uint64_t lost = writer_->lost();
    std::lock_guard<std::mutex> lock(capsule->mutex);
    JsonAnswer a;
    a.json = model_json(*capsule, lost);
    a.etag = "\"" + std::to_string(capsule->model->generation()) + "." + std::to_string(capsule->model->version()) +
             "." + std::to_string(capsule->spec_version) + "\"";
    return a;
}

std::vector<CapsuleStats> DecideStore::stats(std::size_t max) {
    std::vector<std::shared_ptr<Capsule>> all;
    {
        std::shared_lock<std::shared_mutex> lock(capsules_mutex_);
        all.reserve(capsules_.size());
        for (const auto& [key, capsule] : capsules_)
            all.push_back(capsule);
    }
    auto by_name = [](const std::shared_ptr<Capsule>& a, const std::shared_ptr<Capsule>& b) {
        return std::tie(a->ref.tenant, a->ref.job, a->ref.name) < std::tie(b->ref.tenant, b->ref.job, b->ref.name);
    };
    if (all.size() > max) {
        std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(max), all.end(), by_name);
        all.resize(max);
    }
    std::vector<CapsuleStats> out;
    out.reserve(all.size());
    for (const auto& capsule : all) {
        std::lock_guard<std::mutex> lock(capsule->mutex);
        CapsuleStats s;
        s.ref = capsule->ref;
        s.mode = capsule->model->spec().mode;
        s.decisions = capsule->decisions;
        s.explored = capsule->explored;
        s.rewards = capsule->rewards;
        s.reward_sum = capsule->reward_sum;
        s.shadow_lost = capsule->shadow_lost;
        s.spec_version = capsule->spec_version;
        s.generation = capsule->model->generation();
        s.model_version = capsule->model->version();
        out.push_back(std::move(s));
    }
    return out;
}

std::uint64_t DecideStore::write_lost() const {
    return writer_->lost();
}

std::size_t DecideStore::write_queued() const {
    return writer_->queued();
}

std::size_t DecideStore::capsule_count() {
    std::shared_lock<std::shared_mutex> lock(capsules_mutex_);
    return capsules_.size();
}

}  // namespace slipstream::agent::decide
