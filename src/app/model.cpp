// open_model(): ModelSettings to a ModelServer and its OpenAI routes.
#include "app/model.h"

#include <stdexcept>

namespace slipstream::app {

base::Result<std::unique_ptr<ModelServer>> open_model(const Config& config, App& app) {
    const ModelSettings& m = config.model;
    if (m.path.empty()) return std::unique_ptr<ModelServer>();
    ModelServerOptions o;
    o.model_id = m.id;
    o.threads = static_cast<int>(m.threads);
    o.kv_cache_bytes = static_cast<int64_t>(m.kv_cache_bytes);
    o.block_size = m.block_size;
    o.max_context = static_cast<int64_t>(m.max_context);
    o.max_batch_tokens = static_cast<int64_t>(m.max_batch_tokens);
    o.max_running = static_cast<int64_t>(m.max_running);
    o.prefill_chunk = static_cast<int64_t>(m.prefill_chunk);
    o.max_waiting = static_cast<int64_t>(m.max_waiting);
    o.swap_preemption = m.preemption == "swap";
    o.prefix_cache = m.prefix_cache;
    o.speculative_ngram = static_cast<int>(m.speculative_ngram);
    o.draft_model = m.draft;
    o.speculative_draft = static_cast<int>(m.speculative_draft);
    o.draft_kv_cache_bytes = static_cast<int64_t>(m.draft_kv_cache_bytes);
    o.max_choices = static_cast<int>(m.max_choices);
    o.default_max_tokens = static_cast<int64_t>(m.default_max_tokens);
    try {
        auto server = std::make_unique<ModelServer>(m.path, std::move(o));
        server->mount(app);
        return server;
    } catch (const std::invalid_argument& e) {
        return base::Status::invalid_argument(e.what());
    }
}

}  // namespace slipstream::app
