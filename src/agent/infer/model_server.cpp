// ModelServer (include/slipstream/model_server.h): InferenceEngine + mount_openai_routes behind the public API.
#include "slipstream/model_server.h"

#include <stdexcept>

#include "agent/infer/inference_engine.h"
#include "agent/infer/openai_routes.h"

namespace slipstream {

namespace infer = agent::infer;

struct ModelServer::Impl {
    std::shared_ptr<infer::InferenceEngine> engine;
    infer::CompletionLimits limits;
};

ModelServer::ModelServer(const std::string& path, ModelServerOptions o) : impl_(std::make_shared<Impl>()) {
    infer::EngineOptions e;
    e.model_id = o.model_id;
    e.model.threads = o.threads;
    e.model.kv_cache_bytes = o.kv_cache_bytes;
    e.model.block_size = o.block_size;
    e.model.max_context = o.max_context;
    e.scheduler.max_batch_tokens = o.max_batch_tokens;
    e.scheduler.max_running = o.max_running;
    e.scheduler.prefill_chunk = o.prefill_chunk;
    e.scheduler.max_waiting = o.max_waiting;
    e.scheduler.preemption = o.swap_preemption ? infer::PreemptionMode::kSwap : infer::PreemptionMode::kRecompute;
    e.scheduler.enable_prefix_cache = o.prefix_cache;
    e.scheduler.speculative_ngram = o.speculative_ngram;
    e.scheduler.speculative_draft = o.speculative_draft;
    e.draft_path = o.draft_model;
    e.draft_kv_cache_bytes = o.draft_kv_cache_bytes;
    if (o.block_size < 1 || o.max_batch_tokens < 1 || o.max_running < 1 || o.prefill_chunk < 1 || o.max_waiting < 1 ||
        o.max_choices < 1 || o.speculative_ngram < 0 || o.speculative_draft < 0 || o.threads < 0 ||
        o.draft_kv_cache_bytes < 1)
        throw std::invalid_argument(
            "model server options must be positive (threads, speculative_ngram and speculative_draft >= 0)");
    auto engine = infer::InferenceEngine::open(path, std::move(e));
    if (!engine.is_ok()) throw std::invalid_argument(path + ": " + engine.status().message());
    impl_->engine = std::move(engine).value();
    impl_->limits.max_n = o.max_choices;
    impl_->limits.default_max_tokens = o.default_max_tokens;
}

ModelServer::~ModelServer() = default;

void ModelServer::mount(App& app, std::string_view prefix) {
    infer::OpenAIRoutesOptions routes;
    routes.prefix = prefix == "/" ? "" : std::string(prefix);
    routes.limits = impl_->limits;
    infer::mount_openai_routes(app, impl_->engine, routes);
}

const std::string& ModelServer::model_id() const {
    return impl_->engine->model_id();
}

ModelServerStats ModelServer::stats() const {
    const infer::SchedulerStats s = impl_->engine->scheduler().stats();
    ModelServerStats out;
    out.waiting = s.waiting;
    out.running = s.running;
    out.blocks_total = s.blocks_total;
    out.blocks_used = s.blocks_used;
    out.prefix_queried_tokens = s.prefix_queried_tokens;
    out.prefix_hit_tokens = s.prefix_hit_tokens;
    out.tokens_forwarded = s.tokens_forwarded;
    out.tokens_generated = s.tokens_generated;
    out.steps = s.steps;
    out.preemptions = s.preemptions;
    out.spec_proposed = s.spec_proposed;
    out.spec_accepted = s.spec_accepted;
    return out;
}

void ModelServer::stop() {
    impl_->engine->scheduler().stop();
}

}  // namespace slipstream
