// DecideStore::decide(): the model's choice, logged durably (learner, baselineExplore, any eventId) or written
// behind (frozen mode), with eventId idempotency.
#include <mutex>

#include "agent/decide/decide_json.h"
#include "agent/decide/decide_store.h"
#include "agent/decide/feature_hash.h"
#include "agent/decide/policy.h"
#include "agent/sessions/session_id.h"
#include "base/arena.h"
#include "json/parse.h"

namespace slipstream::agent::decide {

namespace {

struct Prepared {
    DecisionRow row;
    std::string answer;
};

std::string request_hash(const std::string& body) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::uint64_t h = feature_hash(body);
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4)
        out[static_cast<std::size_t>(i)] = kDigits[h & 0xf];
    return out + ":" + std::to_string(body.size());
}

// The creation time (12 hex digits of epoch ms) and a random session id: ids of one period sort together, so the
// primary key's index takes each flush's rows on a few pages instead of one random page per row.
base::Result<std::string> decision_id(std::int64_t now_ms) {
    static constexpr char kDigits[] = "0123456789abcdef";
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string random, sessions::new_session_id());
    std::string out(12, '0');
    auto t = static_cast<std::uint64_t>(now_ms);
    for (int i = 11; i >= 0; --i, t >>= 4)
        out[static_cast<std::size_t>(i)] = kDigits[t & 0xf];
    return out + random;
}

// Decides under the capsule's lock and builds the row to log and the answer.
DecideResult<Prepared> prepare(const std::string& principal, Capsule& capsule, const DecideRequest& req,
                               std::int64_t now) {
    base::Arena arena;
    base::Result<const json::Value*> context = json::parse(req.context_json, arena);
    if (!context.is_ok() || !context.value()->is_object())
        return DecideError::invalid("/context", "must be a JSON object");
    DecideInput in;
    in.context = context.value();
    in.only = req.only;
    in.excluded = req.excluded;
    in.baseline = req.baseline;
    in.seed = fresh_seed();
    ActionFeatures given;
    if (!req.features_json.empty()) {
        std::string error;
        if (!parse_action_features(req.features_json, capsule.model->limits(), given, &error))
            return DecideError::invalid("/actions", error);
        in.features = &given;
    }
    std::variant<DecisionOutcome, DecideFailure> outcome;
    std::int64_t spec_version = 0;
    double wait_seconds = 0;
    {
        std::lock_guard<std::mutex> lock(capsule.mutex);
        outcome = capsule.model->decide(in);
        spec_version = capsule.spec_version;
        wait_seconds = capsule.model->spec().reward.wait_seconds;
        if (const auto* d = std::get_if<DecisionOutcome>(&outcome)) {
            ++capsule.decisions;
            if (!d->ranking.empty() && d->ranking.front().index != d->action_index) ++capsule.explored;
        }
    }
    if (auto* f = std::get_if<DecideFailure>(&outcome)) return DecideError::invalid(f->pointer, f->message);
    const DecisionOutcome& d = std::get<DecisionOutcome>(outcome);
    base::Result<std::string> id = decision_id(now);
    if (!id.is_ok()) return DecideError::internal(id.status().to_string());
    Prepared p;
    p.answer = decision_json(*id, d, spec_version, req.event_id, now);
    const CapsuleRef& ref = capsule.ref;
    store::Value event = req.event_id.empty() ? store::Value() : store::Value(req.event_id);
    p.row.id = *id;
    p.row.params = {*id,
                    ref.tenant,
                    ref.job,
                    ref.name,
                    std::move(event),
                    request_hash(req.request_json),
                    principal,
                    d.generation,
                    static_cast<std::int64_t>(d.action_index),
                    req.context_json,
                    p.answer,
                    now,
                    now + static_cast<std::int64_t>(wait_seconds * 1000.0),
                    std::int64_t{0},
                    0.0,
                    std::int64_t{0},
                    req.features_json.empty() ? store::Value() : store::Value(req.features_json)};
    return p;
}

}  // namespace

void DecideStore::decide(std::string principal, CapsuleRef ref, DecideRequest request,
                         DecideCallback<DecideAnswer> done) {
    std::shared_ptr<Capsule> capsule = find(ref);
    if (!capsule) return done(DecideError::not_found("no such capsule"));
    if (!request.invalid_pointer.empty())
        return done(DecideError::invalid(request.invalid_pointer, "names an action given twice"));
    const DecideLimits& limits = options_.limits;
    if (request.context_json.size() > limits.max_context_bytes)
        return done(DecideError::over_limit(
            "context_bytes", limits.max_context_bytes,
            "the context is larger than " + std::to_string(limits.max_context_bytes) + " bytes"));
    Mode mode = Mode::kLearner;
    {
        std::lock_guard<std::mutex> lock(capsule->mutex);
        mode = capsule->model->spec().mode;
    }
    auto shared_request = std::make_shared<DecideRequest>(std::move(request));
    if (!shared_request->event_id.empty() || (mode != Mode::kFrozen && !options_.buffered_decisions))
        return decide_durable(std::move(principal), std::move(capsule), std::move(shared_request), true,
                              std::move(done));
    // Shadow (or buffered): answered now; the row is queued (or, past the queue's bound, counted as lost).
    DecideResult<Prepared> p = prepare(principal, *capsule, *shared_request, now_ms());
    if (!p.is_ok()) return done(p.error());
    std::string answer = p.value().answer;
    if (!writer_->push(std::move(p.value().row))) {
        std::lock_guard<std::mutex> lock(capsule->mutex);
        ++capsule->shadow_lost;
    }
    done(DecideAnswer{std::move(answer), false});
}

void DecideStore::decide_durable(std::string principal, std::shared_ptr<Capsule> capsule,
                                 std::shared_ptr<DecideRequest> request, bool retry,
                                 DecideCallback<DecideAnswer> done) {
    auto self = shared_from_this();
    const std::int64_t now = now_ms();
    transaction(
        [self, principal, capsule, request, retry, done, now](std::shared_ptr<sessions::Transaction> tx) {
            auto insert = [self, principal, capsule, request, retry, done, now, tx] {
                DecideResult<Prepared> p = prepare(principal, *capsule, *request, now);
                if (!p.is_ok()) return done(p.error());
                std::string answer = p.value().answer;
                tx->query(insert_decisions_sql(1), std::move(p.value().row.params),
                          [self, principal, capsule, request, retry, done, tx, answer](store::QueryResult r) {
                              if (!r.is_ok()) {
                                  // The same eventId inserted concurrently (PostgreSQL): read it again.
                                  if (retry && r.status().is_already_exists())
                                      return self->decide_durable(principal, capsule, request, false, done);
                                  return done(error_from_status(r.status()));
                              }
                              tx->commit([done, answer](base::Status s) {
                                  if (!s.is_ok()) return done(error_from_status(s));
                                  done(DecideAnswer{answer, false});
                              });
                          });
            };
            if (request->event_id.empty()) return insert();
            const CapsuleRef& ref = capsule->ref;
            tx->query(
                "SELECT answer, request_hash FROM decide_decisions WHERE tenant = $1 AND job = $2 AND name = $3 "
                "AND event_id = $4",
                {ref.tenant, ref.job, ref.name, request->event_id}, [request, done, insert](store::QueryResult r) {
                    if (!r.is_ok()) return done(error_from_status(r.status()));
                    if (r->row_count() == 0) return insert();
                    if (r->text(0, 1) != request_hash(request->request_json))
                        return done(DecideError::conflict("eventId \"" + request->event_id +
                                                          "\" was used with another request body"));
                    done(DecideAnswer{std::string(r->text(0, 0)), true});
                });
        },
        [done](DecideError e) { done(std::move(e)); });
}

}  // namespace slipstream::agent::decide
