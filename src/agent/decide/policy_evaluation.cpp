// evaluate_policy(): logged rows to LoggedSamples with a progressively trained CapsuleModel.
#include "agent/decide/policy_evaluation.h"

#include <cmath>

#include "agent/decide/capsule_model.h"
#include "agent/decide/feature_encoder.h"
#include "base/arena.h"
#include "json/parse.h"

namespace slipstream::agent::decide {

namespace {

// From a stored answer: the action taken, its propensity and the eligible action ids.
struct Logged {
    std::string action;
    double propensity = 0.0;
    std::vector<std::string> eligible;
};

bool read_answer(std::string_view answer, Logged& out) {
    base::Arena arena;
    base::Result<const json::Value*> root = json::parse(answer, arena);
    if (!root.is_ok() || !root.value()->is_object()) return false;
    const json::Value* action = root.value()->find("action");
    const json::Value* p = root.value()->find("probability");
    const json::Value* ranking = root.value()->find("ranking");
    if (action == nullptr || !action->is_string() || p == nullptr || !p->is_number() || ranking == nullptr ||
        !ranking->is_array())
        return false;
    out.action = std::string(action->as_string());
    out.propensity = p->as_double();
    for (const json::Value& r : ranking->items()) {
        const json::Value* id = r.is_object() ? r.find("action") : nullptr;
        if (id == nullptr || !id->is_string()) return false;
        out.eligible.emplace_back(id->as_string());
    }
    return out.propensity > 0.0 && std::isfinite(out.propensity);
}

}  // namespace

PolicyEvaluation evaluate_policy(std::shared_ptr<const CapsuleSpec> spec, const SpecLimits& limits,
                                 const std::vector<LoggedDecision>& log, std::size_t resamples, std::uint64_t seed) {
    auto learning = std::make_shared<CapsuleSpec>(*spec);
    learning->mode = Mode::kLearner;
    CapsuleModel model(learning, limits, 1);
    PolicyEvaluation out;
    std::vector<LoggedSample> samples;
    samples.reserve(log.size());
    std::int64_t version = 0;
    for (const LoggedDecision& row : log) {
        Logged logged;
        base::Arena arena;
        base::Result<const json::Value*> context = json::parse(row.context_json, arena);
        if (!context.is_ok() || !read_answer(row.answer_json, logged)) {
            ++out.skipped;
            continue;
        }
        ActionFeatures given;
        std::string error;
        if (!parse_action_features(row.features_json, limits, given, &error)) {
            ++out.skipped;
            continue;
        }
        DecideInput in;
        in.context = context.value();
        in.features = given.empty() || learning->learner.kind != LearnerKind::kShared ? nullptr : &given;
        for (const std::string& id : logged.eligible) {
            const int index = action_index(*learning, in.features, id);
            if (index < 0) continue;
            const auto i = static_cast<std::size_t>(index);
            if (i >= learning->actions.size() || is_eligible(learning->actions[i], *context.value()))
                in.only.push_back(id);
        }
        if (in.only.empty()) {
            ++out.skipped;
            continue;
        }
        std::variant<DecisionOutcome, DecideFailure> decided = model.decide(in);
        if (!std::holds_alternative<DecisionOutcome>(decided)) {
            ++out.skipped;
            continue;
        }
        // The vectors in the order of `in.only`; the logged action past their end when the spec lacks it.
        const DecisionOutcome& d = std::get<DecisionOutcome>(decided);
        LoggedSample s;
        s.target.assign(in.only.size(), 0.0);
        s.predicted.assign(in.only.size(), 0.0);
        s.logged = in.only.size();
        for (std::size_t k = 0; k < in.only.size(); ++k) {
            for (const RankedAction& r : d.ranking) {
                if (r.id != in.only[k]) continue;
                s.target[k] = r.probability;
                s.predicted[k] = r.score;
            }
            if (in.only[k] == logged.action) s.logged = k;
        }
        s.propensity = logged.propensity;
        s.reward = row.reward;
        samples.push_back(std::move(s));
        const int taken = action_index(*learning, in.features, logged.action);
        if (taken >= 0)
            (void)model.learn(*context.value(), static_cast<std::size_t>(taken), row.reward, ++version, in.features);
    }
    out.estimates = estimate_off_policy(samples, resamples, seed);
    return out;
}

}  // namespace slipstream::agent::decide
