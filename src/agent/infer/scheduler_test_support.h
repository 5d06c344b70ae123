// Helpers for the scheduler tests: a recorder of generation events, prompts, requests, running to completion.
#pragma once

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "agent/infer/scheduler.h"
#include "agent/infer/scripted_model.h"

namespace slipstream::agent::infer::testing {

struct Outcome {
    std::vector<int32_t> tokens;
    std::vector<size_t> tokens_per_event;
    bool finished = false;
    FinishReason reason = FinishReason::kNone;
    GenerationEvent last;
};

/// Collects events by request id and fork; thread-safe (the threaded test reads it while the step thread writes).
class Recorder {
  public:
    std::function<void(const GenerationEvent&)> callback() {
        return [this](const GenerationEvent& e) {
            std::lock_guard lock(mu_);
            Outcome& o = outcomes_[{e.id, e.fork}];
            EXPECT_FALSE(o.finished) << "event after the last one for " << e.id << " fork " << e.fork;
            for (const SampledToken& t : e.tokens)
                o.tokens.push_back(t.token);
            o.tokens_per_event.push_back(e.tokens.size());
            o.finished = e.finished;
            o.reason = e.reason;
            o.last = e;
            if (e.finished) {
                finish_order_.push_back(e.id);
                done_.notify_all();
            }
        };
    }
    Outcome get(uint64_t id, int32_t fork = 0) const {
        std::lock_guard lock(mu_);
        auto it = outcomes_.find({id, fork});
        return it == outcomes_.end() ? Outcome{} : it->second;
    }
    std::vector<uint64_t> finish_order() const {
        std::lock_guard lock(mu_);
        return finish_order_;
    }
    void wait_finished(size_t n) {
        std::unique_lock lock(mu_);
        done_.wait(lock, [&] { return finish_order_.size() >= n; });
    }

  private:
    mutable std::mutex mu_;
    std::condition_variable done_;
    std::map<std::pair<uint64_t, int32_t>, Outcome> outcomes_;
    std::vector<uint64_t> finish_order_;
};

/// A deterministic prompt of n tokens in [1, vocab).
inline std::vector<int32_t> make_prompt(int64_t n, uint64_t seed, int64_t vocab = 64) {
    std::vector<int32_t> p;
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 12345;
    for (int64_t i = 0; i < n; ++i) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 32;
        p.push_back(static_cast<int32_t>(1 + x % static_cast<uint64_t>(vocab - 1)));
    }
    return p;
}

inline GenerationRequest greedy_request(std::vector<int32_t> prompt, int64_t max_tokens, Recorder& recorder,
                                        int priority = 0) {
    GenerationRequest r;
    r.prompt = std::move(prompt);
    r.sampling.temperature = 0.0f;
    r.sampling.max_tokens = max_tokens;
    r.priority = priority;
    r.on_event = recorder.callback();
    return r;
}

/// Steps until step() says there is nothing to do; fails the test after max_steps.
inline int64_t run_to_idle(Scheduler& scheduler, int64_t max_steps = 100000) {
    int64_t steps = 0;
    while (scheduler.step()) {
        if (++steps > max_steps) {
            ADD_FAILURE() << "the scheduler did not go idle in " << max_steps << " steps";
            break;
        }
    }
    return steps;
}

}  // namespace slipstream::agent::infer::testing
