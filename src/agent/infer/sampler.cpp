// Sampler: penalties, temperature, min-p/top-k/top-p truncation and a seeded draw over one row of logits.
#include "agent/infer/sampler.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace slipstream::agent::infer {
namespace {

// Temperatures below this are greedy, as in vLLM: dividing by them only overflows.
constexpr float kGreedyBelow = 1e-5f;
// With top-k/top-p on, only tokens with exp((l - max) / T) >= this are gathered first; the full row is used only
// when they hold too little mass to contain the answer (see truncate()).
constexpr float kPrefilter = 1e-4f;
// Top-p sorts the candidates in growing prefixes of this many (x4 each round) instead of sorting them all.
constexpr size_t kFirstSortedPrefix = 256;
constexpr int kLanes = 8;

// exp(x) for x <= 0 in plain float arithmetic the compiler vectorizes (Cephes expf polynomial, ~2 ulp); exactly 0
// below -87 so masked (-inf) logits get no weight. Branch-free so the loops that call it vectorize.
inline float fast_exp(float x) {
    const float keep = static_cast<float>(x >= -87.0f);
    x = x >= -87.0f ? x : -87.0f;
    const float t = x * 1.44269504088896341f;
    const int32_t n = static_cast<int32_t>(t - 0.5f);  // round to nearest for t <= 0
    const float nf = static_cast<float>(n);
    float r = x - nf * 0.693359375f;
    r = r + nf * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    return p * std::bit_cast<float>((n + 127) << 23) * keep;
}

// Sum of n floats with independent lanes, so the loop vectorizes; the lanes meet in double.
double lane_sum(const float* p, size_t n) {
    float acc[kLanes] = {};
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (int j = 0; j < kLanes; ++j)
            acc[j] += p[i + j];
    }
    double s = 0.0;
    for (int j = 0; j < kLanes; ++j)
        s += acc[j];
    for (; i < n; ++i)
        s += p[i];
    return s;
}

float row_max(std::span<const float> row) {
    float acc[kLanes];
    std::fill(std::begin(acc), std::end(acc), -std::numeric_limits<float>::infinity());
    const float* p = row.data();
    size_t i = 0;
    for (; i + kLanes <= row.size(); i += kLanes) {
        for (int j = 0; j < kLanes; ++j)
            acc[j] = acc[j] < p[i + j] ? p[i + j] : acc[j];
    }
    float m = acc[0];
    for (int j = 1; j < kLanes; ++j)
        m = std::max(m, acc[j]);
    for (; i < row.size(); ++i)
        m = std::max(m, p[i]);
    return m;
}

// Greedy: the first index holding the maximum, found by a vectorized max and then a scan for it.
int32_t argmax(std::span<const float> row) {
    const float m = row_max(row);
    for (size_t i = 0; i < row.size(); ++i) {
        if (row[i] == m) return static_cast<int32_t>(i);
    }
    return 0;  // all NaN
}

}  // namespace

Sampler::Sampler(SamplingParams params, std::span<const int32_t> prompt, uint64_t fallback_seed)
    : params_(std::move(params)), rng_(params_.has_seed ? params_.seed : fallback_seed) {
    prompt_.assign(prompt.begin(), prompt.end());
    std::erase_if(prompt_, [](int32_t t) { return t < 0; });
    std::sort(prompt_.begin(), prompt_.end());
    prompt_.erase(std::unique(prompt_.begin(), prompt_.end()), prompt_.end());
    if (!prompt_.empty()) {
        in_prompt_.assign(static_cast<size_t>(prompt_.back()) + 1, 0);
        for (int32_t t : prompt_)
            in_prompt_[static_cast<size_t>(t)] = 1;
    }
}

void Sampler::accept(int32_t token) {
    if (token < 0) return;
    const auto t = static_cast<size_t>(token);
    if (t >= counts_.size()) counts_.resize(std::max(t + 1, counts_.size() * 2), 0);
    if (counts_[t]++ == 0) output_distinct_.push_back(token);
}

bool Sampler::greedy() const {
    return !(params_.temperature >= kGreedyBelow);
}

std::span<const float> Sampler::penalised(std::span<const float> logits) {
    const float rep = params_.repetition_penalty;
    const float freq = params_.frequency_penalty;
    const float pres = params_.presence_penalty;
    const bool rep_on = rep != 1.0f && rep > 0.0f;
    if (!rep_on && freq == 0.0f && pres == 0.0f) return logits;
    if (prompt_.empty() && output_distinct_.empty()) return logits;

    work_.assign(logits.begin(), logits.end());
    const size_t vocab = work_.size();
    auto repeat = [&](size_t t) { work_[t] = work_[t] > 0.0f ? work_[t] / rep : work_[t] * rep; };
    if (rep_on) {
        for (int32_t t : prompt_) {
            if (static_cast<size_t>(t) < vocab) repeat(static_cast<size_t>(t));
        }
    }
    for (int32_t token : output_distinct_) {
        const auto t = static_cast<size_t>(token);
        if (t >= vocab) continue;
        const bool in_prompt = t < in_prompt_.size() && in_prompt_[t] != 0;
        if (rep_on && !in_prompt) repeat(t);
        work_[t] -= freq * static_cast<float>(counts_[t]) + pres;  // count > 0 for every output token
    }
    return work_;
}

void Sampler::adjusted_probabilities(std::span<const float> row, std::vector<float>& probs) {
    max_logit_ = row_max(row);
    inv_temp_ = 1.0f / params_.temperature;
    probs.resize(row.size());
    const float m = max_logit_;
    const float s = inv_temp_;
    const float* in = row.data();
    float* out = probs.data();
    for (size_t i = 0; i < row.size(); ++i)
        out[i] = fast_exp((in[i] - m) * s);
    total_mass_ = lane_sum(out, row.size());
}

void Sampler::truncate() {
    const size_t vocab = probs_.size();
    const float min_p = params_.min_p > 0.0f ? std::min(params_.min_p, 1.0f) : 0.0f;
    const bool top_k_on = params_.top_k > 0 && static_cast<size_t>(params_.top_k) < vocab;
    const bool top_p_on = params_.top_p < 1.0f;
    const size_t k = top_k_on ? static_cast<size_t>(params_.top_k) : vocab;
    const float* p = probs_.data();

    // Min-p alone (or nothing): a dense floor; the max token has weight exactly 1, so it always stays.
    if (!top_k_on && !top_p_on) {
        sparse_ = false;
        floor_ = min_p;
        if (min_p <= 0.0f) {
            kept_mass_ = total_mass_;
            return;
        }
        double kept = 0.0;
        for (size_t i = 0; i < vocab; ++i)
            kept += p[i] >= min_p ? p[i] : 0.0f;
        kept_mass_ = kept;
        return;
    }

    // Gather: the min-p set M, or its prefix {w >= kPrefilter} when that provably contains the answer: for top-k
    // when it has >= k tokens; for top-p alone when it holds >= top_p of M's mass. Otherwise see the histogram below.
    sparse_ = true;
    const float gather_floor = std::max(min_p, kPrefilter);
    candidates_.clear();
    double gathered = 0.0;
    double min_p_mass = 0.0;
    for (size_t i = 0; i < vocab; ++i) {
        if (p[i] >= min_p) min_p_mass += p[i];
        if (p[i] >= gather_floor) {
            candidates_.push_back(static_cast<int32_t>(i));
            gathered += p[i];
        }
    }
    const bool complete = gather_floor <= min_p;
    const bool enough =
        complete || (top_k_on ? candidates_.size() >= k : gathered >= static_cast<double>(params_.top_p) * min_p_mass);
    size_t fixed = 0;  // candidates_[0, fixed) are in the nucleus for certain: top-p orders only the rest
    double fixed_mass = 0.0;
    if (!enough) {
        // Histogram of the min-p set by float exponent (bucket b holds weights in [2^(b-127), 2^(b-126))). The
        // bucket where the top-k count or the top-p mass is reached, walking down, bounds the answer from below;
        // for top-p every token in a higher bucket is kept, so only the boundary bucket needs ordering.
        std::array<double, 256> mass{};
        std::array<uint32_t, 256> count{};
        for (size_t i = 0; i < vocab; ++i) {
            if (p[i] < min_p) continue;
            const uint32_t b = std::bit_cast<uint32_t>(p[i]) >> 23;
            mass[b] += p[i];
            ++count[b];
        }
        const double target = top_k_on ? static_cast<double>(k) : static_cast<double>(params_.top_p) * min_p_mass;
        uint32_t bucket = 255;
        double above = 0.0;  // count or mass of the buckets above `bucket`
        for (; bucket > 0; --bucket) {
            const double here = top_k_on ? count[bucket] : mass[bucket];
            if (above + here >= target) break;
            above += here;
        }
        const float floor = std::max(min_p, std::bit_cast<float>(bucket << 23));
        const float higher = std::bit_cast<float>((bucket + 1) << 23);
        candidates_.clear();
        for (size_t i = 0; i < vocab; ++i) {
            if (p[i] >= floor) candidates_.push_back(static_cast<int32_t>(i));
        }
        if (!top_k_on) {
            const auto mid = std::partition(candidates_.begin(), candidates_.end(),
                                            [p, higher](int32_t t) { return p[t] >= higher; });
            fixed = static_cast<size_t>(mid - candidates_.begin());
            fixed_mass = above;
        }
    }
    auto better = [p](int32_t a, int32_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); };

    // Top-k.
    double set_mass = min_p_mass;
    if (top_k_on && candidates_.size() > k) {
        std::nth_element(candidates_.begin(), candidates_.begin() + static_cast<ptrdiff_t>(k), candidates_.end(),
                         better);
        candidates_.resize(k);
    }
    if (top_k_on) {
        set_mass = 0.0;
        for (int32_t t : candidates_)
            set_mass += p[t];
    }

    // Top-p: the shortest prefix (most likely first) whose mass reaches top_p of the set; at least one token.
    if (top_p_on) {
        const double target = static_cast<double>(params_.top_p) * set_mass;
        double cum = fixed_mass;
        size_t sorted = fixed;
        size_t keep = candidates_.size();
        for (size_t i = fixed; i < candidates_.size(); ++i) {
            if (i == sorted) {
                const size_t next =
                    std::min(candidates_.size(), sorted + std::max(kFirstSortedPrefix, (sorted - fixed) * 4));
                auto first = candidates_.begin() + static_cast<ptrdiff_t>(sorted);
                auto last = candidates_.begin() + static_cast<ptrdiff_t>(next);
                std::nth_element(first, last - 1, candidates_.end(), better);
                std::sort(first, last, better);
                sorted = next;
            }
            cum += p[candidates_[i]];
            if (cum >= target) {
                keep = i + 1;
                break;
            }
        }
        candidates_.resize(std::max<size_t>(keep, 1));
    }
    double kept = 0.0;
    for (int32_t t : candidates_)
        kept += p[t];
    kept_mass_ = kept;
}

double Sampler::kept_weight(int32_t token) const {
    if (token < 0 || static_cast<size_t>(token) >= probs_.size()) return 0.0;
    const float w = probs_[static_cast<size_t>(token)];
    if (!sparse_) return w >= floor_ ? w : 0.0;
    return std::find(candidates_.begin(), candidates_.end(), token) != candidates_.end() ? w : 0.0;
}

double Sampler::uniform() {
    return static_cast<double>(rng_() >> 11) * 0x1.0p-53;
}

int32_t Sampler::draw(double mass, int32_t exclude) {
    const double target = uniform() * mass;
    const float* p = probs_.data();
    int32_t last = -1;
    double cum = 0.0;
    if (sparse_) {
        for (int32_t t : candidates_) {
            if (t == exclude) continue;
            last = t;
            cum += p[t];
            if (cum > target) return t;
        }
        return last;
    }
    // Dense: skip whole blocks by their (vectorized) sums, then walk the block that holds the target.
    constexpr size_t kBlock = 512;
    const size_t vocab = probs_.size();
    const float floor = floor_;
    for (size_t b = 0; b < vocab; b += kBlock) {
        const size_t end = std::min(vocab, b + kBlock);
        const bool has_excluded =
            exclude >= 0 && static_cast<size_t>(exclude) >= b && static_cast<size_t>(exclude) < end;
        if (floor <= 0.0f && !has_excluded) {
            const double block = lane_sum(p + b, end - b);
            if (cum + block <= target) {
                cum += block;
                if (block > 0.0) last = static_cast<int32_t>(end - 1);
                continue;
            }
        }
        for (size_t i = b; i < end; ++i) {
            if (static_cast<int32_t>(i) == exclude || p[i] < floor || p[i] <= 0.0f) continue;
            last = static_cast<int32_t>(i);
            cum += p[i];
            if (cum > target) return last;
        }
    }
    // Rounding left the target past the end: the last token with weight (found by a backward scan when the
    // skipped block's last slot was zero or excluded).
    for (size_t i = vocab; i-- > 0;) {
        if (static_cast<int32_t>(i) != exclude && p[i] >= floor && p[i] > 0.0f) return static_cast<int32_t>(i);
    }
    return last;
}

void Sampler::fill_logprobs(std::span<const float> row, float row_max_v, float inv_temp, double log_total,
                            SampledToken& out) const {
    auto logprob = [&](size_t i) {
        return static_cast<float>(static_cast<double>((row[i] - row_max_v) * inv_temp) - log_total);
    };
    out.logprob = logprob(static_cast<size_t>(out.token));
    const size_t n = std::min(static_cast<size_t>(std::min(params_.top_logprobs, 20)), row.size());
    out.top.clear();
    if (n == 0) return;
    // The n best by logit (the order is the same at any temperature), kept sorted; most rows fail the first test.
    std::vector<int32_t> best;
    best.reserve(n + 1);
    for (size_t i = 0; i < row.size(); ++i) {
        const float v = row[i];
        if (best.size() == n && !(v > row[static_cast<size_t>(best.back())])) continue;
        auto pos = std::upper_bound(best.begin(), best.end(), v,
                                    [&](float x, int32_t t) { return x > row[static_cast<size_t>(t)]; });
        best.insert(pos, static_cast<int32_t>(i));
        if (best.size() > n) best.pop_back();
    }
    for (int32_t t : best)
        out.top.push_back({t, logprob(static_cast<size_t>(t))});
}

SampledToken Sampler::finish(std::span<const float> row, int32_t token, bool have_mass) {
    SampledToken out;
    out.token = token;
    if (params_.top_logprobs < 0) return out;
    if (have_mass) {
        fill_logprobs(row, max_logit_, inv_temp_, std::log(total_mass_), out);
        return out;
    }
    // Greedy: the log-softmax at temperature 1.
    const float m = row_max(row);
    double total = 0.0;
    float block[kLanes * 64];
    for (size_t b = 0; b < row.size(); b += std::size(block)) {
        const size_t end = std::min(row.size(), b + std::size(block));
        for (size_t i = b; i < end; ++i)
            block[i - b] = fast_exp(row[i] - m);
        total += lane_sum(block, end - b);
    }
    fill_logprobs(row, m, 1.0f, std::log(total), out);
    return out;
}

SampledToken Sampler::sample(std::span<const float> logits) {
    if (logits.empty()) return {};
    const std::span<const float> row = penalised(logits);
    if (greedy()) return finish(row, argmax(row), false);
    adjusted_probabilities(row, probs_);
    truncate();
    return finish(row, draw(kept_mass_, -1), true);
}

std::pair<SampledToken, bool> Sampler::verify(std::span<const float> logits, int32_t draft) {
    if (logits.empty()) return {SampledToken{}, false};
    const std::span<const float> row = penalised(logits);
    if (greedy()) {
        const int32_t best = argmax(row);
        return {finish(row, best, false), best == draft};
    }
    adjusted_probabilities(row, probs_);
    truncate();
    // Accept with p(draft); otherwise draw from p with the draft removed, renormalised. The emitted token then
    // follows p exactly: P(t) = p(d)[t = d] + (1 - p(d)) p(t) / (1 - p(d)) for t != d.
    const double w = kept_weight(draft);
    if (w > 0.0 && uniform() * kept_mass_ < w) return {finish(row, draft, true), true};
    return {finish(row, draw(kept_mass_ - w, draft), true), false};
}

}  // namespace slipstream::agent::infer
