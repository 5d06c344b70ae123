// A minimal Sampler for the serving tests while sampler.cpp is not in this tree: temperature only, no penalties.
#include <algorithm>
#include <cmath>

#include "agent/infer/sampler.h"

namespace slipstream::agent::infer {

namespace {

size_t argmax(std::span<const float> logits) {
    return static_cast<size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

float log_softmax_at(std::span<const float> logits, size_t index) {
    const float top = logits[argmax(logits)];
    double sum = 0.0;
    for (float l : logits)
        sum += std::exp(static_cast<double>(l - top));
    return static_cast<float>(static_cast<double>(logits[index] - top) - std::log(sum));
}

size_t draw(std::span<const float> probs, std::mt19937_64& rng) {
    double total = 0.0;
    for (float p : probs)
        total += p;
    double u = std::uniform_real_distribution<double>(0.0, total)(rng);
    for (size_t i = 0; i < probs.size(); ++i) {
        u -= probs[i];
        if (u < 0.0) return i;
    }
    return probs.size() - 1;
}

}  // namespace

Sampler::Sampler(SamplingParams params, std::span<const int32_t> prompt, uint64_t fallback_seed)
    : params_(std::move(params)),
      rng_(params_.has_seed ? params_.seed : fallback_seed),
      prompt_(prompt.begin(), prompt.end()) {}

void Sampler::adjusted_probabilities(std::span<const float> logits, std::vector<float>& probs) {
    probs.resize(logits.size());
    const float top = logits[argmax(logits)];
    for (size_t i = 0; i < logits.size(); ++i)
        probs[i] = std::exp((logits[i] - top) / params_.temperature);
}

SampledToken Sampler::sample(std::span<const float> logits) {
    size_t token;
    if (params_.temperature <= 0.0f) {
        token = argmax(logits);
    } else {
        adjusted_probabilities(logits, work_);
        token = draw(work_, rng_);
    }
    return SampledToken{static_cast<int32_t>(token), log_softmax_at(logits, token), {}};
}

void Sampler::accept(int32_t token) {
    if (counts_.size() <= static_cast<size_t>(token)) counts_.resize(static_cast<size_t>(token) + 1, 0);
    ++counts_[static_cast<size_t>(token)];
}

std::pair<SampledToken, bool> Sampler::verify(std::span<const float> logits, int32_t draft) {
    const size_t d = static_cast<size_t>(draft);
    if (params_.temperature <= 0.0f) {
        const size_t token = argmax(logits);
        return {SampledToken{static_cast<int32_t>(token), log_softmax_at(logits, token), {}}, token == d};
    }
    adjusted_probabilities(logits, work_);
    double total = 0.0;
    for (float p : work_)
        total += p;
    if (std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < work_[d] / total) {
        return {SampledToken{draft, log_softmax_at(logits, d), {}}, true};
    }
    work_[d] = 0.0f;
    const size_t token = draw(work_, rng_);
    return {SampledToken{static_cast<int32_t>(token), log_softmax_at(logits, token), {}}, false};
}

}  // namespace slipstream::agent::infer
