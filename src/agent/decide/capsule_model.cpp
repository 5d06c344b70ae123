// CapsuleModel::decide(): eligible actions -> scores -> probabilities -> the seeded draw.
#include "agent/decide/capsule_model.h"

#include <algorithm>
#include <cmath>

#include "agent/decide/feature_encoder.h"
#include "agent/decide/policy.h"

namespace slipstream::agent::decide {

namespace {

const json::Value& empty_object() {
    static const json::Value kEmpty = json::Value::object(nullptr, 0);
    return kEmpty;
}

bool listed(const std::vector<std::string>& ids, std::string_view id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

void put_hex(std::string& out, std::uint64_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    for (int shift = 60; shift >= 0; shift -= 4)
        out.push_back(kDigits[(v >> shift) & 0xf]);
}

}  // namespace

CapsuleModel::CapsuleModel(std::shared_ptr<const CapsuleSpec> spec, SpecLimits limits, std::int64_t generation)
    : spec_(std::move(spec)), limits_(limits), generation_(generation) {
    const std::size_t n = spec_->learner.kind == LearnerKind::kShared ? 1 : spec_->actions.size();
    arms_.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        arms_.emplace_back(spec_->dimension, spec_->learner.regularization);
}

RidgeArm& CapsuleModel::arm_for(std::size_t action) {
    return arms_[spec_->learner.kind == LearnerKind::kShared ? 0 : action];
}
const RidgeArm& CapsuleModel::arm_for(std::size_t action) const {
    return arms_[spec_->learner.kind == LearnerKind::kShared ? 0 : action];
}

std::variant<DecisionOutcome, DecideFailure> CapsuleModel::decide(const DecideInput& in) const {
    const CapsuleSpec& spec = *spec_;
    const json::Value& context = in.context != nullptr && in.context->is_object() ? *in.context : empty_object();
    if (in.features != nullptr && !in.features->empty() && spec.learner.kind != LearnerKind::kShared)
        return DecideFailure{"/actions", "action features need the shared learner (learner.type \"shared\")"};
    for (std::size_t i = 0; i < in.only.size(); ++i)
        if (action_index(spec, in.features, in.only[i]) < 0)
            return DecideFailure{"/actions/" + std::to_string(i),
                                 "names no action of the capsule (a request's own action needs its features)"};
    // Eligible actions: the spec's in its order, then the request's own (indexes after the spec's).
    std::vector<std::size_t> eligible;
    for (std::size_t i = 0; i < spec.actions.size(); ++i) {
        const ActionSpec& a = spec.actions[i];
        if (!in.only.empty() && !listed(in.only, a.id)) continue;
        if (listed(in.excluded, a.id) || !is_eligible(a, context)) continue;
        eligible.push_back(i);
    }
    const auto own = request_actions(spec, in.features);
    for (std::size_t k = 0; k < own.size(); ++k)
        if (listed(in.only, own[k]->first) && !listed(in.excluded, own[k]->first))
            eligible.push_back(spec.actions.size() + k);
    if (eligible.empty()) return DecideFailure{"/context", "leaves no eligible action"};
    std::string error;
    std::vector<HashedFeature> features = encode_context(spec, context, limits_, &error);
    if (!error.empty()) return DecideFailure{"/context", std::move(error)};

    std::vector<double> scores(eligible.size());
    for (std::size_t k = 0; k < eligible.size(); ++k)
        scores[k] = arm_for(eligible[k]).score(action_vector(spec, features, eligible[k], in.features));

    std::vector<double> p;
    if (spec.mode == Mode::kBaselineExplore) {
        if (!in.baseline) return DecideFailure{"/baselineAction", "is required in baselineExplore mode"};
        const int b = action_index(spec, in.features, *in.baseline);
        auto at = std::find(eligible.begin(), eligible.end(), static_cast<std::size_t>(b < 0 ? 0 : b));
        if (b < 0 || at == eligible.end())
            return DecideFailure{"/baselineAction", "names no eligible action of the capsule"};
        p = baseline_probabilities(eligible.size(), static_cast<std::size_t>(at - eligible.begin()),
                                   spec.exploration.epsilon);
    } else if (spec.exploration.kind == ExplorationKind::kSquareCb) {
        // A schedule as Vowpal Wabbit's: exploit more as the model learns (gammaExponent 0: a constant gamma).
        const double gamma =
            spec.exploration.gamma_exponent > 0
                ? spec.exploration.gamma *
                      std::pow(std::max<double>(1.0, static_cast<double>(version_)), spec.exploration.gamma_exponent)
                : spec.exploration.gamma;
        p = squarecb_probabilities(scores, gamma, spec.exploration.floor);
    } else {
        p = epsilon_greedy_probabilities(scores, spec.exploration.epsilon, spec.exploration.floor);
    }
    const std::size_t drawn = sample_index(p, in.seed);

    DecisionOutcome out;
    out.action_index = eligible[drawn];
    out.action = action_id(spec, in.features, out.action_index);
    out.probability = p[drawn];
    out.mode = spec.mode;
    out.seed = in.seed;
    out.model_version = version_;
    out.generation = generation_;
    out.ranking.reserve(eligible.size());
    for (std::size_t k = 0; k < eligible.size(); ++k)
        out.ranking.push_back({eligible[k], action_id(spec, in.features, eligible[k]), scores[k], p[k]});
    std::stable_sort(out.ranking.begin(), out.ranking.end(), [](const RankedAction& a, const RankedAction& b) {
        return a.probability != b.probability ? a.probability > b.probability : a.score > b.score;
    });
    return out;
}

base::Status CapsuleModel::learn(const json::Value& context, std::size_t action, double reward, std::int64_t version,
                                 const ActionFeatures* given) {
    if (action_id(*spec_, given, action).empty() ||
        (action >= spec_->actions.size() && spec_->learner.kind != LearnerKind::kShared))
        return base::Status::invalid_argument("no such action");
    std::string error;
    std::vector<HashedFeature> features =
        encode_context(*spec_, context.is_object() ? context : empty_object(), limits_, &error);
    if (!error.empty()) return base::Status::invalid_argument(error);
    arm_for(action).update(action_vector(*spec_, features, action, given), reward, spec_->learner.learning_rate,
                           spec_->learner.forgetting);
    version_ = version;
    return base::Status::ok();
}

std::string CapsuleModel::snapshot() const {
    std::string out = "dm1";
    put_hex(out, static_cast<std::uint64_t>(generation_));
    put_hex(out, static_cast<std::uint64_t>(version_));
    put_hex(out, arms_.size());
    put_hex(out, spec_->dimension);
    for (const RidgeArm& arm : arms_)
        arm.save(out);
    return out;
}

base::Status CapsuleModel::restore(std::string_view text) {
    auto bad = [] { return base::Status::invalid_argument("model snapshot: malformed"); };
    if (!text.starts_with("dm1") || text.size() < 3 + 64) return bad();
    text.remove_prefix(3);
    std::uint64_t fields[4];
    for (std::uint64_t& f : fields) {
        f = 0;
        for (int i = 0; i < 16; ++i) {
            const char c = text[static_cast<std::size_t>(i)];
            const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0) return bad();
            f = (f << 4) | static_cast<std::uint64_t>(digit);
        }
        text.remove_prefix(16);
    }
    if (static_cast<std::int64_t>(fields[0]) != generation_ || fields[2] != arms_.size() ||
        fields[3] != spec_->dimension)
        return base::Status::invalid_argument("model snapshot: of another model");
    std::vector<RidgeArm> arms;
    for (std::size_t i = 0; i < arms_.size(); ++i) {
        arms.emplace_back(spec_->dimension, spec_->learner.regularization);
        SLIPSTREAM_RETURN_IF_ERROR(arms.back().load(text));
    }
    if (!text.empty()) return bad();
    arms_ = std::move(arms);
    version_ = static_cast<std::int64_t>(fields[1]);
    return base::Status::ok();
}

std::vector<std::uint64_t> CapsuleModel::updates_per_action() const {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < spec_->actions.size(); ++i)
        out.push_back(arm_for(i).updates());
    return out;
}

}  // namespace slipstream::agent::decide
