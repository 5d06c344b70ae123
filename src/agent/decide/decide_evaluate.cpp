// DecideStore::evaluate() and promote(): the logged closed decisions replayed through the candidate and the
// current spec, and the promotion gate.
#include <mutex>

#include "agent/decide/decide_json.h"
#include "agent/decide/decide_rows.h"
#include "agent/decide/decide_store.h"
#include "agent/decide/evaluation_report.h"
#include "agent/decide/policy_evaluation.h"
#include "agent/sessions/json_merge_patch.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

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
            EvaluationReport report =
                evaluate_candidate(candidate, current, spec_limits, log, request.resamples, request.seed);
            e->logged = report.logged;
            e->json = report_members(report, e->spec_version);
            e->candidate = std::move(report.candidate);
            e->current = std::move(report.current);
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
            EvaluationReport report;
            report.candidate = e->candidate;
            report.current = e->current;
            const std::vector<std::string> reasons = gate_reasons(report, min_samples);
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
