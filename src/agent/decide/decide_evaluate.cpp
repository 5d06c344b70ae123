// DecideStore::evaluate() and promote(): the logged closed decisions replayed through the candidate and the
// current spec, and the promotion gate.
#include <mutex>

#include "agent/decide/decide_json.h"
#include "agent/decide/decide_rows.h"
#include "agent/decide/decide_store.h"
#include "agent/decide/policy_evaluation.h"
#include "agent/sessions/json_merge_patch.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

void interval(json::Writer& w, std::string_view name, const Interval& i) {
    w.key(name);
    w.begin_object();
    for (auto [key, value] : {std::pair{"estimate", i.estimate}, {"low", i.low}, {"high", i.high}}) {
        w.key(key);
        if (!w.number(value).is_ok()) w.null();
    }
    w.end_object();
}

void policy(json::Writer& w, std::string_view name, const PolicyEvaluation& p) {
    w.key(name);
    w.begin_object();
    w.key("samples");
    w.uint64(p.estimates.samples);
    w.key("skipped");
    w.uint64(p.skipped);
    w.key("effectiveSamples");
    if (!w.number(p.estimates.effective_samples).is_ok()) w.null();
    interval(w, "ips", p.estimates.ips);
    interval(w, "snips", p.estimates.snips);
    interval(w, "dm", p.estimates.dm);
    interval(w, "dr", p.estimates.dr);
    w.end_object();
}

}  // namespace

struct DecideStore::Evaluated {
    std::string patch;
    std::int64_t spec_version = 0;
    PolicyEvaluation candidate;
    PolicyEvaluation current;
    std::size_t logged = 0;
    std::string json;  // "candidate", "current", "logging", ... (members only, no braces)
};

void DecideStore::run_evaluation(const CapsuleRef& ref, EvaluateRequest request,
                                 std::function<void(DecideResult<std::shared_ptr<Evaluated>>)> done) {
    std::shared_ptr<Capsule> capsule = find(ref);
    if (!capsule) return done(DecideError::not_found("no such capsule"));
    const DecideLimits& limits = options_.limits;
    if (request.resamples > limits.max_resamples)
        return done(DecideError::invalid("/resamples", "must be at most " + std::to_string(limits.max_resamples)));
    auto e = std::make_shared<Evaluated>();
    std::shared_ptr<const CapsuleSpec> current;
    std::string current_json;
    {
        std::lock_guard<std::mutex> lock(capsule->mutex);
        current = capsule->model->spec_ptr();
        current_json = capsule->spec_json;
        e->spec_version = capsule->spec_version;
    }
    base::Result<std::string> merged = sessions::apply_merge_patch(current_json, request.patch_json);
    if (!merged.is_ok()) return done(DecideError::bad_spec("/spec", "is not JSON"));
    SpecResult parsed = parse_capsule_spec(*merged, limits.spec);
    if (auto* bad = std::get_if<SpecError>(&parsed))
        return done(DecideError::bad_spec("/spec" + bad->pointer, bad->message));
    auto candidate = std::make_shared<const CapsuleSpec>(std::move(std::get<CapsuleSpec>(parsed)));
    e->patch = request.patch_json;
    const SpecLimits spec_limits = limits.spec;
    query(
        "SELECT context, answer, reward, actions FROM decide_decisions WHERE tenant = $1 AND job = $2 AND name = $3 "
        "AND "
        "closed = 1 AND created_at >= $4 AND created_at < $5 ORDER BY created_at, id LIMIT $6",
        {ref.tenant, ref.job, ref.name, request.from_ms, request.to_ms, static_cast<std::int64_t>(limits.max_evaluate)},
        [e, candidate, current, spec_limits, request, done](store::QueryResult r) {
            if (!r.is_ok()) return done(error_from_status(r.status()));
            std::vector<LoggedDecision> log;
            log.reserve(r->row_count());
            for (std::size_t i = 0; i < r->row_count(); ++i) {
                log.push_back({std::string(r->text(i, 0)), std::string(r->text(i, 1)), double_cell(r.value(), i, 2),
                               std::string(r->text(i, 3))});
            }
            // CPU work on the database's thread, bounded by max_evaluate decisions.
            e->logged = log.size();
            e->candidate = evaluate_policy(candidate, spec_limits, log, request.resamples, request.seed);
            e->current = evaluate_policy(current, spec_limits, log, request.resamples, request.seed);
            std::string& out = e->json;
            json::Writer w(out);
            w.key("logged");
            w.uint64(e->logged);
            w.key("specVersion");
            w.int64(e->spec_version);
            w.key("resamples");
            w.uint64(request.resamples);
            w.key("confidence");
            if (!w.number(0.95).is_ok()) w.null();
            interval(w, "logging", e->candidate.estimates.logging);
            policy(w, "candidate", e->candidate);
            policy(w, "current", e->current);
            done(e);
        });
}

void DecideStore::evaluate(CapsuleRef ref, EvaluateRequest request, DecideCallback<JsonAnswer> done) {
    run_evaluation(ref, std::move(request), [done](DecideResult<std::shared_ptr<Evaluated>> e) {
        if (!e.is_ok()) return done(e.error());
        done(JsonAnswer{"{" + e.value()->json + "}", ""});
    });
}

void DecideStore::promote(std::string principal, CapsuleRef ref, EvaluateRequest request,
                          DecideCallback<JsonAnswer> done) {
    const std::size_t min_samples =
        request.min_samples == 0 ? options_.limits.min_promote_samples : request.min_samples;
    auto self = shared_from_this();
    run_evaluation(
        ref, std::move(request),
        [self, principal, ref, min_samples, done](DecideResult<std::shared_ptr<Evaluated>> result) {
            if (!result.is_ok()) return done(result.error());
            std::shared_ptr<Evaluated> e = result.value();
            std::vector<std::string> reasons;
            const std::size_t n = e->candidate.estimates.samples;
            if (n < min_samples)
                reasons.push_back("only " + std::to_string(n) + " logged decisions; the gate needs " +
                                  std::to_string(min_samples));
            const double low = e->candidate.estimates.dr.low;
            const double current = e->current.estimates.dr.estimate;
            if (!(low > current)) {
                std::string text;
                append_number(text, low);
                text += " is not above the current policy's DR estimate ";
                append_number(text, current);
                reasons.push_back("the candidate's DR lower bound " + text);
            }
            const std::string evaluation = "{" + e->json + "}";
            if (!reasons.empty()) {
                std::string members = ",\"reasons\":[";
                for (std::size_t i = 0; i < reasons.size(); ++i) {
                    if (i > 0) members += ",";
                    json::Writer(members).string(reasons[i]);
                }
                members += "],\"evaluation\":" + evaluation;
                DecideError refused = DecideError::conflict("the candidate does not pass the promotion gate");
                refused.members = std::move(members);
                return done(refused);
            }
            self->put_spec(principal, ref, e->patch, e->spec_version, [done, evaluation](DecideResult<SpecAnswer> s) {
                if (!s.is_ok()) return done(s.error());
                done(JsonAnswer{"{\"promoted\":true,\"spec\":" + spec_answer_json(s.value()) +
                                    ",\"evaluation\":" + evaluation + "}",
                                ""});
            });
        });
}

}  // namespace slipstream::agent::decide
