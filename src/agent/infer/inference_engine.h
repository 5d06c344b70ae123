// InferenceEngine: one loaded model with its tokenizer, chat template and scheduler, ready to serve requests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "agent/infer/chat_template.h"
#include "agent/infer/json_constraint.h"
#include "agent/infer/json_mask_cache.h"
#include "agent/infer/llama_model.h"
#include "agent/infer/scheduler.h"
#include "agent/infer/token_bytes.h"
#include "agent/infer/tokenizer.h"
#include "base/result.h"
#include "store/worker_pool.h"

namespace slipstream::agent::infer {

struct EngineOptions {
    LlamaModelOptions model;
    SchedulerOptions scheduler;  // speculative_draft: draft tokens per step when draft_path is set (0: not loaded)
    std::string draft_path;      // a smaller model with the same vocabulary and tokenizer; empty: none
    int64_t draft_kv_cache_bytes = int64_t{64} << 20;  // the draft model's own KV cache (same block size)
    std::string model_id;                 // the name clients send as "model"; empty: the file's name without extension
    std::string tokenizer_path;           // llama2.c checkpoints only: tokenizer.bin (default: beside the model)
    std::size_t prep_threads = 1;         // threads that render chat templates and tokenize prompts
    std::size_t max_pending_prep = 1024;  // requests waiting for them; prepare() refuses beyond it
    // Constrained decoding: token masks cached per schema (JsonMaskCache) for the most recent this many schemas,
    // each up to mask_cache_bytes.
    std::size_t mask_cache_schemas = 8;
    std::size_t mask_cache_bytes = JsonMaskCache::kDefaultMaxBytes;
    // A new schema's cache starts with the masks JsonConstraint::precompute finds, computed on a preparation
    // thread while the first requests go on (at most this many masks; 0: none), pinned up to mask_pinned_bytes.
    std::size_t mask_precompute = JsonConstraint::Precompute{}.max_masks;
    std::size_t mask_pinned_bytes = JsonMaskCache::kDefaultMaxPinnedBytes;
};

/// Owns the model, its tokenizer and chat template, and a running scheduler (its step thread starts in open()
/// and stops in the destructor, finishing every request as cancelled). Thread-safe: submit and cancel through
/// scheduler() from any thread.
class InferenceEngine {
  public:
    /// Loads a .gguf file (or a llama2.c .bin with its tokenizer.bin). Errors: the file's (unreadable, not a
    /// model, unsupported architecture or tensor type), or invalid_argument for options the model cannot use, for a
    /// draft model whose vocabulary size or tokenizer differs from the model's, or for a draft with prompt-lookup
    /// speculation too.
    static base::Result<std::unique_ptr<InferenceEngine>> open(const std::string& path, EngineOptions options);
    ~InferenceEngine();

    const std::string& model_id() const { return model_id_; }
    int64_t created() const { return created_; }  // unix seconds when loaded ("created" of /v1/models)
    const ModelConfig& config() const { return model_->config(); }
    int64_t max_context() const { return model_->max_context(); }
    const Tokenizer& tokenizer() const { return *tokenizer_; }
    const ChatTemplate& chat_template() const { return chat_template_; }
    Scheduler& scheduler() { return *scheduler_; }
    /// Runs `job` on the engine's preparation threads (template rendering and tokenization stay off the I/O
    /// threads). Any thread. Errors: resource_exhausted when max_pending_prep jobs wait already.
    [[nodiscard]] base::Status prepare(std::function<void()> job);
    LlamaModel& model() { return *model_; }
    /// Null without a draft model.
    const LlamaModel* draft_model() const { return draft_model_.get(); }
    /// Every token's bytes (the model's vocabulary wide), made on first use and shared by constrained requests.
    /// Any thread.
    std::shared_ptr<const TokenBytes> token_bytes();
    /// The mask cache shared by the constrained requests of `schema` (one per schema, the most recent
    /// mask_cache_schemas kept; null when that is 0); a new one gets its precomputed masks from a job on the
    /// preparation threads (EngineOptions::mask_precompute). Any thread.
    std::shared_ptr<JsonMaskCache> mask_cache(const std::shared_ptr<const structured::CompiledSchema>& schema);

  private:
    InferenceEngine() = default;
    std::string model_id_;
    int64_t created_ = 0;
    std::unique_ptr<Tokenizer> tokenizer_;
    ChatTemplate chat_template_ = ChatTemplate::from_name("chatml");
    std::unique_ptr<LlamaModel> model_;
    std::unique_ptr<LlamaModel> draft_model_;  // driven by the scheduler's DraftModelProposer; outlives it
    std::unique_ptr<Scheduler> scheduler_;
    std::once_flag token_bytes_once_;
    std::shared_ptr<const TokenBytes> token_bytes_;
    std::size_t mask_cache_schemas_ = 0, mask_cache_bytes_ = 0, mask_precompute_ = 0, mask_pinned_bytes_ = 0;
    std::mutex mask_caches_mu_;
    std::list<std::shared_ptr<JsonMaskCache>> mask_caches_;  // most recent first
    std::unique_ptr<store::WorkerPool> prep_;  // reset first in the destructor: its queued jobs still submit
};

}  // namespace slipstream::agent::infer
