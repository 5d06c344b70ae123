// Constrained sampling: a few plain draws with refused tokens struck out, then one draw under the full mask.
#include "agent/infer/token_constraint.h"

#include <algorithm>
#include <limits>

namespace slipstream::agent::infer {

void TokenConstraint::fill_allowed(std::span<uint8_t> allowed) {
    for (size_t t = 0; t < allowed.size(); ++t)
        allowed[t] = allows(static_cast<int32_t>(t)) ? 1 : 0;
}

namespace {

bool is_stop(const SamplingParams& params, int32_t token) {
    return std::find(params.stop_tokens.begin(), params.stop_tokens.end(), token) != params.stop_tokens.end();
}

}  // namespace

ConstrainedDraw sample_constrained(Sampler& sampler, TokenConstraint& constraint, std::span<const float> logits,
                                   int tries, std::vector<float>& scratch, std::vector<uint8_t>& allowed) {
    const SamplingParams& params = sampler.params();
    const bool stops_count = !params.ignore_eos;
    int complete = -1;  // asked at most once per call
    auto is_complete = [&] {
        if (complete < 0) complete = constraint.complete() ? 1 : 0;
        return complete == 1;
    };
    auto ok = [&](int32_t t) {
        if (t < 0 || static_cast<size_t>(t) >= logits.size()) return false;
        if (stops_count && is_stop(params, t)) return is_complete();
        return constraint.allows(t);
    };
    constexpr float kRefused = -std::numeric_limits<float>::infinity();
    ConstrainedDraw out;
    // A model that wants what the constraint allows costs one check.
    SampledToken first = sampler.sample(logits);
    if (ok(first.token)) {
        out.token = std::move(first);
        return out;
    }
    scratch.assign(logits.begin(), logits.end());
    int32_t refused = first.token;
    for (int i = 0; i < tries; ++i) {
        ++out.refused;
        if (refused >= 0 && static_cast<size_t>(refused) < scratch.size())
            scratch[static_cast<size_t>(refused)] = kRefused;
        SampledToken next = sampler.sample(scratch);
        if (ok(next.token)) {
            out.token = std::move(next);
            return out;
        }
        refused = next.token;
    }
    ++out.refused;
    // The full mask: every token checked (the constraint prunes shared prefixes), stop tokens by complete().
    out.masked = true;
    allowed.assign(logits.size(), 0);
    constraint.fill_allowed(allowed);
    if (stops_count) {
        for (int32_t t : params.stop_tokens) {
            if (t >= 0 && static_cast<size_t>(t) < allowed.size())
                allowed[static_cast<size_t>(t)] = is_complete() ? 1 : 0;
        }
    }
    int32_t best = -1;  // the allowed token with the highest logit, should the draw land on a refused one
    for (size_t t = 0; t < allowed.size(); ++t) {
        if (allowed[t] == 0) {
            scratch[t] = kRefused;
        } else if (best < 0 || logits[t] > logits[static_cast<size_t>(best)]) {
            best = static_cast<int32_t>(t);
        }
    }
    if (best < 0) return out;
    SampledToken last = sampler.sample(scratch);
    if (last.token < 0 || static_cast<size_t>(last.token) >= allowed.size() ||
        allowed[static_cast<size_t>(last.token)] == 0)
        last.token = best;  // every allowed logit was -inf or NaN
    out.token = std::move(last);
    return out;
}

}  // namespace slipstream::agent::infer
