// DecideStore::put_spec(): merge patch, validation, the next version (and maybe a new model generation).
#include <mutex>

#include "agent/decide/decide_store.h"
#include "agent/sessions/json_merge_patch.h"
#include "agent/sessions/session_rows.h"

namespace slipstream::agent::decide {

namespace {

struct SpecWrite {
    std::string principal;
    CapsuleRef ref;
    std::string patch;
    std::optional<std::int64_t> expected;
    DecideCallback<SpecAnswer> done;
    // Filled as the transaction goes.
    std::string merged;
    std::shared_ptr<const CapsuleSpec> spec;
    SpecAnswer answer;
    std::int64_t updates = 0;  // the capsule's learning log so far
};

}  // namespace

void DecideStore::put_spec(std::string principal, CapsuleRef ref, std::string patch_json,
                           std::optional<std::int64_t> expected_version, DecideCallback<SpecAnswer> done) {
    auto w = std::make_shared<SpecWrite>();
    w->principal = std::move(principal);
    w->ref = std::move(ref);
    w->patch = std::move(patch_json);
    w->expected = expected_version;
    w->done = std::move(done);
    if (w->patch.size() > options_.limits.spec.max_spec_bytes)
        return w->done(DecideError::over_limit(
            "spec_bytes", options_.limits.spec.max_spec_bytes,
            "the spec is larger than " + std::to_string(options_.limits.spec.max_spec_bytes) + " bytes"));
    auto self = shared_from_this();
    const std::int64_t now = now_ms();
    transaction(
        [self, w, now](std::shared_ptr<sessions::Transaction> tx) {
            const CapsuleRef& r = w->ref;
            tx->query(
                "SELECT spec, spec_version, generation, updates FROM decide_capsules WHERE tenant = $1 AND job = $2 "
                "AND "
                "name = $3",
                {r.tenant, r.job, r.name}, [self, w, tx, now](store::QueryResult read) {
                    if (!read.is_ok()) return w->done(error_from_status(read.status()));
                    const bool exists = read->row_count() > 0;
                    const std::int64_t version = exists ? sessions::int_cell(read.value(), 0, 1) : 0;
                    const std::int64_t generation = exists ? sessions::int_cell(read.value(), 0, 2) : 0;
                    w->updates = exists ? sessions::int_cell(read.value(), 0, 3) : 0;
                    if (w->expected && *w->expected != version) {
                        DecideError e = DecideError::conflict("the spec is at version " + std::to_string(version));
                        e.current_version = version;
                        return w->done(e);
                    }
                    const DecideLimits& limits = self->options_.limits;
                    if (!exists) {
                        std::shared_lock<std::shared_mutex> lock(self->capsules_mutex_);
                        if (self->capsules_.size() >= limits.max_capsules)
                            return w->done(DecideError::over_limit(
                                "capsules", limits.max_capsules,
                                "the store holds " + std::to_string(limits.max_capsules) + " capsules (the limit)"));
                    }
                    base::Result<std::string> merged = sessions::apply_merge_patch(
                        exists ? std::string(read->text(0, 0)) : std::string("{}"), w->patch);
                    if (!merged.is_ok()) return w->done(DecideError::bad_spec("", "the body is not JSON"));
                    SpecResult parsed = parse_capsule_spec(*merged, limits.spec);
                    if (auto* e = std::get_if<SpecError>(&parsed))
                        return w->done(DecideError::bad_spec(e->pointer, e->message));
                    w->merged = std::move(merged).value();
                    w->spec = std::make_shared<const CapsuleSpec>(std::move(std::get<CapsuleSpec>(parsed)));
                    // The model goes on unless what it depends on changed.
                    bool same_model = false;
                    if (std::shared_ptr<Capsule> c = self->find(w->ref)) {
                        std::lock_guard<std::mutex> lock(c->mutex);
                        same_model = exists && c->model && c->model->spec().model_key == w->spec->model_key;
                    }
                    w->answer = SpecAnswer{w->merged, version + 1, same_model ? generation : version + 1, !exists};
                    const CapsuleRef& ref = w->ref;
                    store::Params params{ref.tenant,           ref.job, ref.name, w->merged, w->answer.version,
                                         w->answer.generation, now};
                    std::string sql;
                    if (exists) {
                        sql =
                            "UPDATE decide_capsules SET spec = $4, spec_version = $5, generation = $6, "
                            "updated_at = $7 WHERE tenant = $1 AND job = $2 AND name = $3 AND spec_version = $8";
                        params.emplace_back(version);
                    } else {
                        sql =
                            "INSERT INTO decide_capsules (tenant, job, name, spec, spec_version, generation, "
                            "updates, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $7)";
                    }
                    tx->query(sql, std::move(params), [self, w, tx, now](store::QueryResult wrote) {
                        if (!wrote.is_ok()) return w->done(error_from_status(wrote.status()));
                        if (!w->answer.created && wrote->affected_rows() == 0)
                            return w->done(DecideError::conflict("the spec changed concurrently; try again"));
                        const CapsuleRef& ref = w->ref;
                        tx->query(
                            "INSERT INTO decide_specs (tenant, job, name, version, spec, principal, created_at) "
                            "VALUES ($1, $2, $3, $4, $5, $6, $7)",
                            {ref.tenant, ref.job, ref.name, w->answer.version, w->merged, w->principal, now},
                            [self, w, tx](store::QueryResult history) {
                                if (!history.is_ok()) return w->done(error_from_status(history.status()));
                                tx->commit([self, w](base::Status s) {
                                    if (!s.is_ok()) return w->done(error_from_status(s));
                                    self->install_spec(w->ref, w->spec, w->merged, w->answer, w->updates);
                                    w->done(w->answer);
                                });
                            });
                    });
                });
        },
        [w](DecideError e) { w->done(std::move(e)); });
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
