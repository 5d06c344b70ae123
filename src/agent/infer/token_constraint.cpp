// Constrained sampling: a few plain draws with refused tokens struck out, then one draw under the full mask.
#include "agent/infer/token_constraint.h"

#include <algorithm>
#include <limits>

namespace slipstream::agent::infer {

void TokenConstraint::fill_allowed(std::span<uint8_t> allowed) {
    for (size_t t = 0; t < allowed.size(); ++t)
        allowed[t] = allows(static_cast<int32_t>(t)) ? 1 : 0;
}

void TokenConstraint::fill_allowed_bits(std::span<uint32_t> bits, std::size_t tokens) {
    std::vector<uint8_t> bytes(tokens);
    fill_allowed(bytes);
    std::fill(bits.begin(), bits.end(), 0);
    for (size_t t = 0; t < tokens; ++t)
        bits[t / 32] |= static_cast<uint32_t>(bytes[t] != 0) << (t % 32);
}

namespace {

bool is_stop(const SamplingParams& params, int32_t token) {
    return std::find(params.stop_tokens.begin(), params.stop_tokens.end(), token) != params.stop_tokens.end();
}

}  // namespace

ConstrainedDraw sample_constrained(Sampler& sampler, TokenConstraint& constraint, std::span<const float> logits,
                                   int tries, std::vector<float>& scratch, std::vector<uint32_t>& allowed) {
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
    const size_t n = logits.size();
    allowed.assign((n + 31) / 32, 0);
    constraint.fill_allowed_bits(allowed, n);
    const auto is_allowed = [&](size_t t) { return (allowed[t / 32] >> (t % 32) & 1) != 0; };
    if (stops_count) {
        for (int32_t t : params.stop_tokens) {
            if (t < 0 || static_cast<size_t>(t) >= n) continue;
            const auto bit = uint32_t{1} << (static_cast<size_t>(t) % 32);
            uint32_t& word = allowed[static_cast<size_t>(t) / 32];
            word = is_complete() ? word | bit : word & ~bit;
        }
    }
    int32_t best = -1;  // the allowed token with the highest logit, should the draw land on a refused one
    for (size_t t = 0; t < n; ++t) {
        if (!is_allowed(t)) {
            scratch[t] = kRefused;
        } else if (best < 0 || logits[t] > logits[static_cast<size_t>(best)]) {
            best = static_cast<int32_t>(t);
        }
    }
    if (best < 0) return out;
    SampledToken last = sampler.sample(scratch);
    if (last.token < 0 || static_cast<size_t>(last.token) >= n || !is_allowed(static_cast<size_t>(last.token)))
        last.token = best;  // every allowed logit was -inf or NaN
    out.token = std::move(last);
    return out;
}

}  // namespace slipstream::agent::infer
