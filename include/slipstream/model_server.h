// ModelServer: a model file served with the OpenAI API (/v1/chat/completions, /v1/completions, /v1/models).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "slipstream/app.h"

namespace slipstream {

/// Every size and count has a limit here; the defaults suit a small model on a few cores.
struct ModelServerOptions {
    std::string model_id;                                   // the name clients send as "model"; empty: the file's stem
    int threads = 0;                                        // kernel threads; 0: one per core
    std::int64_t kv_cache_bytes = std::int64_t{256} << 20;  // the paged KV cache (keys and values, float32)
    std::int64_t block_size = 16;         // positions per KV block; the prefix cache shares whole blocks
    std::int64_t max_context = 0;         // longest prompt + output; 0: the model's context length
    std::int64_t max_batch_tokens = 512;  // tokens one scheduler step computes (decodes + prefill chunks)
    std::int64_t max_running = 64;        // sequences in the running batch
    std::int64_t prefill_chunk = 256;     // prompt tokens of one sequence per step
    std::int64_t max_waiting = 1024;      // queued sequences; past it requests get 503
    bool swap_preemption = false;         // out of KV blocks: swap to host memory (else recompute)
    bool prefix_cache = true;             // reuse the KV blocks of earlier prompts' common prefixes
    int speculative_ngram = 0;            // prompt-lookup draft tokens per step (lossless); 0: off
    std::string draft_model;              // a smaller .gguf with the same vocabulary and tokenizer; empty: none
    int speculative_draft = 4;            // the draft model's tokens per step (lossless); 0: off
    std::int64_t draft_kv_cache_bytes = std::int64_t{64} << 20;  // the draft model's own KV cache
    int max_choices = 16;                                        // n times the prompts of one request
    std::int64_t default_max_tokens = 0;  // when a request names none; 0: what is left of the context
};

/// Counters of the scheduler and the prefix cache, read at any time from any thread.
struct ModelServerStats {
    std::int64_t waiting = 0;
    std::int64_t running = 0;
    std::int64_t blocks_total = 0;
    std::int64_t blocks_used = 0;
    std::uint64_t prefix_queried_tokens = 0;
    std::uint64_t prefix_hit_tokens = 0;
    std::uint64_t tokens_forwarded = 0;
    std::uint64_t tokens_generated = 0;
    std::uint64_t steps = 0;
    std::uint64_t preemptions = 0;
    std::uint64_t spec_proposed = 0;
    std::uint64_t spec_accepted = 0;
};

/// A loaded model (a .gguf of architecture llama or qwen2 with f32/f16/bf16/q8_0/q4_0 tensors, or a llama2.c .bin
/// with tokenizer.bin beside it) and its running scheduler. The request path is all C++: JSON Schema checks, the
/// chat template, tokenization, continuous batching, sampling and the SSE stream.
class ModelServer {
  public:
    /// Loads the model (blocking; seconds for a large file) and starts the scheduler's thread. Throws
    /// std::invalid_argument with the loader's message (unreadable file, unsupported architecture or tensor
    /// type, bad shape), for options the model cannot use, or for a draft model whose vocabulary or tokenizer
    /// differs from the model's.
    explicit ModelServer(const std::string& path, ModelServerOptions options = {});
    ~ModelServer();  // stops the scheduler (requests in flight end as cancelled) once the routes let go
    ModelServer(const ModelServer&) = delete;
    ModelServer& operator=(const ModelServer&) = delete;

    /// Registers POST {prefix}/chat/completions, POST {prefix}/completions, GET {prefix}/models and
    /// GET {prefix}/models/{id} on `app` (before it starts). Errors are OpenAI's {"error": {...}} bodies.
    /// Throws std::invalid_argument on a route clash.
    void mount(App& app, std::string_view prefix = "/v1");
    const std::string& model_id() const;
    ModelServerStats stats() const;
    /// Stops the scheduler now: requests in flight end, later ones get 503.
    void stop();

  private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace slipstream
