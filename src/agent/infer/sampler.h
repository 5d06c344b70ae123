// Sampler: the next token from a row of logits, as a request's sampling parameters say.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace slipstream::agent::infer {

/// OpenAI's and vLLM's knobs. Defaults sample from the unchanged distribution.
struct SamplingParams {
    float temperature = 1.0f;         // 0: greedy (argmax; ties go to the lowest id)
    int32_t top_k = 0;                // 0: off
    float top_p = 1.0f;               // 1: off
    float min_p = 0.0f;               // 0: off; keeps tokens with p >= min_p * p_max
    float repetition_penalty = 1.0f;  // 1: off; CTRL-style: logit / r if > 0 else logit * r, over prompt + output
    float frequency_penalty = 0.0f;   // OpenAI: logit -= f * count(token in output)
    float presence_penalty = 0.0f;    // OpenAI: logit -= p * (count > 0)
    uint64_t seed = 0;
    bool has_seed = false;      // without a seed each request draws one from the engine's generator
    int32_t top_logprobs = -1;  // -1: no logprobs; 0..20: the chosen token's logprob and this many best
    int64_t max_tokens = 256;
    std::vector<int32_t> stop_tokens;  // end generation after emitting one (the tokenizer's EOS/EOT ids)
    bool ignore_eos = false;           // keep going past stop_tokens (benchmarks)
};

struct TokenLogprob {
    int32_t token = 0;
    float logprob = 0.0f;
};

/// Logprobs follow OpenAI's and vLLM's "processed" convention: log-softmax of the logits after the penalties and
/// the temperature, BEFORE min-p/top-k/top-p truncation (so a token outside the nucleus still has a finite
/// logprob, and the values do not depend on the truncation knobs). Greedy requests (temperature 0) report the
/// log-softmax of the penalised logits at temperature 1. Both fields are filled only when top_logprobs >= 0 (else
/// logprob is 0 and top is empty), which keeps the greedy path an argmax. Ties in `top` go to the lowest id.
struct SampledToken {
    int32_t token = 0;
    float logprob = 0.0f;           // log p(token) under the distribution after penalties and temperature
    std::vector<TokenLogprob> top;  // top_logprobs best, most likely first (empty when not asked)
};

/// Per-sequence sampler: owns the RNG and the output-token counts the penalties need. Not thread-safe; the
/// scheduler's step thread owns it.
class Sampler {
  public:
    /// prompt: for the repetition penalty (which covers prompt and output, as HF/vLLM apply it).
    Sampler(SamplingParams params, std::span<const int32_t> prompt, uint64_t fallback_seed);

    /// Applies penalties, temperature, top-k, top-p, min-p to a copy of `logits` and draws. Does not record the
    /// token: call accept() for the token that is kept.
    SampledToken sample(std::span<const float> logits);
    /// Records an emitted token (for the penalties).
    void accept(int32_t token);

    /// Speculative verification, lossless: `draft` was proposed deterministically (n-gram or greedy draft).
    /// Accepts it with probability p(draft) under this sampler's distribution, else draws from p with draft
    /// removed (renormalised), so the emitted token follows p exactly. Greedy: accepted iff it is the argmax.
    /// Returns the emitted token and whether the draft was accepted.
    std::pair<SampledToken, bool> verify(std::span<const float> logits, int32_t draft);

    const SamplingParams& params() const { return params_; }

  private:
    bool greedy() const;
    /// The logits after the penalties: `logits` itself when no penalty is on, else a copy in work_.
    std::span<const float> penalised(std::span<const float> logits);
    /// probs[i] = exp((row[i] - max) / temperature), unnormalised; sets max_logit_, inv_temp_, total_mass_.
    void adjusted_probabilities(std::span<const float> row, std::vector<float>& probs);
    /// Applies min-p, top-k, top-p to probs_: sets sparse_/candidates_ or floor_, and kept_mass_.
    void truncate();
    /// The kept (unnormalised) weight of `token` after truncation; 0 when it was cut.
    double kept_weight(int32_t token) const;
    /// Draws from the kept set with `exclude` removed; `mass` is the kept mass without it.
    int32_t draw(double mass, int32_t exclude);
    double uniform();
    /// Fills logprob and top from `row` under temperature 1/inv_temp (log_total = log of the softmax sum).
    void fill_logprobs(std::span<const float> row, float row_max, float inv_temp, double log_total,
                       SampledToken& out) const;
    SampledToken finish(std::span<const float> row, int32_t token, bool have_mass);

    SamplingParams params_;
    std::mt19937_64 rng_;
    std::vector<int32_t> counts_;  // output-token counts (sized lazily to the vocabulary)
    std::vector<uint8_t> in_prompt_;
    std::vector<int32_t> prompt_;           // distinct prompt tokens
    std::vector<int32_t> output_distinct_;  // distinct output tokens, in first-seen order
    std::vector<float> work_;               // penalised logits
    std::vector<float> probs_;              // exp((logit - max) / temperature)
    std::vector<int32_t> candidates_;       // the kept tokens when sparse_
    bool sparse_ = false;
    float floor_ = 0.0f;  // dense: tokens with probs_ below this are cut (min-p)
    float max_logit_ = 0.0f;
    float inv_temp_ = 1.0f;
    double total_mass_ = 0.0;  // sum of probs_ (before truncation)
    double kept_mass_ = 0.0;   // sum of the kept weights
};

}  // namespace slipstream::agent::infer
