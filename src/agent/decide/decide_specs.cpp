// DecideStore::put_spec(): merge patch, validation, the next version (and maybe a new model generation), in one
// transaction: read the row, write it, add the history row, commit, then the capsule in memory takes the spec.
#include <mutex>

#include "agent/decide/decide_store.h"
#include "agent/sessions/json_merge_patch.h"
#include "agent/sessions/session_rows.h"

namespace slipstream::agent::decide {

struct DecideStore::SpecJob {
    std::shared_ptr<DecideStore> store;
    std::string principal;
    CapsuleRef ref;
    std::string patch;
    std::optional<std::int64_t> expected;
    std::int64_t now = 0;
    DecideCallback<SpecAnswer> done;
    // Filled as the transaction goes.
    std::int64_t stored_version = 0;  // 0: a new capsule
    std::int64_t updates = 0;         // the capsule's learning log so far
    std::string merged;
    std::shared_ptr<const CapsuleSpec> spec;
    SpecAnswer answer;

    void fail(const base::Status& s) const { done(error_from_status(s)); }
};

void DecideStore::put_spec(std::string principal, CapsuleRef ref, std::string patch_json,
                           std::optional<std::int64_t> expected_version, DecideCallback<SpecAnswer> done) {
    const SpecLimits& limits = options_.limits.spec;
    if (patch_json.size() > limits.max_spec_bytes)
        return done(
            DecideError::over_limit("spec_bytes", limits.max_spec_bytes,
                                    "the spec is larger than " + std::to_string(limits.max_spec_bytes) + " bytes"));
    auto job = std::make_shared<SpecJob>();
    job->store = shared_from_this();
    job->principal = std::move(principal);
    job->ref = std::move(ref);
    job->patch = std::move(patch_json);
    job->expected = expected_version;
    job->now = now_ms();
    job->done = std::move(done);
    transaction(
        [job](std::shared_ptr<sessions::Transaction> tx) {
            const CapsuleRef& r = job->ref;
            tx->query(
                "SELECT spec, spec_version, generation, updates FROM decide_capsules WHERE tenant = $1 AND "
                "job = $2 AND name = $3",
                {r.tenant, r.job, r.name}, [tx, job](store::QueryResult read) {
                    if (!read.is_ok()) return job->fail(read.status());
                    if (std::optional<DecideError> refused = job->store->spec_next(*job, read.value()))
                        return job->done(*refused);
                    spec_write(tx, job);
                });
        },
        [job](DecideError e) { job->done(std::move(e)); });
}

// Step 1 (on the row read): the version check, the limit, the merge and the validation; fills the answer.
std::optional<DecideError> DecideStore::spec_next(SpecJob& job, const store::ResultSet& row) {
    const bool exists = row.row_count() > 0;
    job.stored_version = exists ? sessions::int_cell(row, 0, 1) : 0;
    const std::int64_t generation = exists ? sessions::int_cell(row, 0, 2) : 0;
    job.updates = exists ? sessions::int_cell(row, 0, 3) : 0;
    if (job.expected && *job.expected != job.stored_version) {
        DecideError e = DecideError::conflict("the spec is at version " + std::to_string(job.stored_version));
        e.current_version = job.stored_version;
        return e;
    }
    const DecideLimits& limits = options_.limits;
    if (!exists) {
        std::shared_lock<std::shared_mutex> lock(capsules_mutex_);
        if (capsules_.size() >= limits.max_capsules)
            return DecideError::over_limit(
                "capsules", limits.max_capsules,
                "the store holds " + std::to_string(limits.max_capsules) + " capsules (the limit)");
    }
    base::Result<std::string> merged =
        sessions::apply_merge_patch(exists ? std::string(row.text(0, 0)) : std::string("{}"), job.patch);
    if (!merged.is_ok()) return DecideError::bad_spec("", "the body is not JSON");
    SpecResult parsed = parse_capsule_spec(*merged, limits.spec);
    if (auto* e = std::get_if<SpecError>(&parsed)) return DecideError::bad_spec(e->pointer, e->message);
    job.merged = std::move(merged).value();
    job.spec = std::make_shared<const CapsuleSpec>(std::move(std::get<CapsuleSpec>(parsed)));
    // The model goes on unless what it depends on changed.
    bool same_model = false;
    if (std::shared_ptr<Capsule> c = find(job.ref)) {
        std::lock_guard<std::mutex> lock(c->mutex);
        same_model = exists && c->model && c->model->spec().model_key == job.spec->model_key;
    }
    const std::int64_t next = job.stored_version + 1;
    job.answer = SpecAnswer{job.merged, next, same_model ? generation : next, !exists};
    return std::nullopt;
}

// Step 2: the capsule's row (guarded by the version read: a concurrent change is a conflict), the history row,
// the COMMIT, then the capsule in memory.
void DecideStore::spec_write(const std::shared_ptr<sessions::Transaction>& tx, const std::shared_ptr<SpecJob>& job) {
    const CapsuleRef& ref = job->ref;
    store::Params params{ref.tenant, ref.job, ref.name, job->merged, job->answer.version, job->answer.generation,
                         job->now};
    std::string sql;
    if (job->answer.created) {
        sql =
            "INSERT INTO decide_capsules (tenant, job, name, spec, spec_version, generation, updates, created_at, "
            "updated_at) VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $7)";
    } else {
        sql =
            "UPDATE decide_capsules SET spec = $4, spec_version = $5, generation = $6, updated_at = $7 WHERE "
            "tenant = $1 AND job = $2 AND name = $3 AND spec_version = $8";
        params.emplace_back(job->stored_version);
    }
    tx->query(sql, std::move(params), [tx, job](store::QueryResult wrote) {
        if (!wrote.is_ok()) return job->fail(wrote.status());
        if (!job->answer.created && wrote->affected_rows() == 0)
            return job->done(DecideError::conflict("the spec changed concurrently; try again"));
        const CapsuleRef& ref = job->ref;
        tx->query(
            "INSERT INTO decide_specs (tenant, job, name, version, spec, principal, created_at) VALUES ($1, "
            "$2, $3, $4, $5, $6, $7)",
            {ref.tenant, ref.job, ref.name, job->answer.version, job->merged, job->principal, job->now},
            [tx, job](store::QueryResult history) {
                if (!history.is_ok()) return job->fail(history.status());
                tx->commit([job](base::Status s) {
                    if (!s.is_ok()) return job->fail(s);
                    job->store->install_spec(job->ref, job->spec, job->merged, job->answer, job->updates);
                    job->done(job->answer);
                });
            });
    });
}

void DecideStore::install_spec(const CapsuleRef& ref, std::shared_ptr<const CapsuleSpec> spec, const std::string& json,
                               const SpecAnswer& answer, std::int64_t updates) {
    std::shared_ptr<Capsule> c = find(ref);
    if (!c) {
        // A capsule is published with its model: nothing ever sees one without.
        auto made = std::make_shared<Capsule>(ref);
        made->applied_seq = updates;  // the learning log of a capsule that did not load at start
        made->set_spec(spec, json, answer.version, answer.generation, options_.limits.spec);
        std::unique_lock<std::shared_mutex> lock(capsules_mutex_);
        auto [at, inserted] = capsules_.emplace(ref.key(), made);
        if (inserted) return;
        c = at->second;
    }
    std::lock_guard<std::mutex> lock(c->mutex);
    if (answer.version > c->spec_version)
        c->set_spec(std::move(spec), json, answer.version, answer.generation, options_.limits.spec);
}

}  // namespace slipstream::agent::decide
