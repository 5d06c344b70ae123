// ModelSettings: the OpenAI-compatible model server (--model and its knobs), opened by open_model().
#pragma once

#include <cstdint>
#include <string>

namespace slipstream::app {

/// Read like every other option (flags > SLIPSTREAM_* > config file > defaults).
struct ModelSettings {
    std::string path;                           // --model: a .gguf (or llama2.c .bin); empty: no model
    std::string id;                             // the name clients send; empty: the file's stem
    std::uint32_t threads = 0;                  // kernel threads; 0: one per core
    std::uint64_t kv_cache_bytes = 256u << 20;  // the paged KV cache
    std::uint32_t block_size = 16;              // positions per KV block
    std::uint64_t max_context = 0;              // 0: the model's context length
    std::uint64_t max_batch_tokens = 512;       // tokens one scheduler step computes
    std::uint64_t max_running = 64;             // sequences in the running batch
    std::uint64_t prefill_chunk = 256;          // prompt tokens of one sequence per step
    std::uint64_t max_waiting = 1024;           // queued sequences; then 503
    std::string preemption = "recompute";       // or "swap"
    bool prefix_cache = true;
    std::uint32_t speculative_ngram = 0;  // prompt-lookup draft tokens per step; 0: off
    std::string draft;                    // --model-draft: a smaller model with the same vocabulary; empty: none
    std::uint32_t speculative_draft = 4;  // the draft model's tokens per step; 0: off
    std::uint64_t draft_kv_cache_bytes = 64u << 20;  // the draft model's KV cache
    std::uint32_t max_choices = 16;                  // n (times prompts) of one request
    std::uint64_t default_max_tokens = 0;            // when a request names none; 0: what is left of the context
};

}  // namespace slipstream::app
