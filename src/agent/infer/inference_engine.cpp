// Loading a model file into a serving engine: weights, tokenizer, chat template, KV cache, scheduler, draft model.
#include "agent/infer/inference_engine.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "agent/infer/draft_model_proposer.h"
#include "agent/infer/gguf_file.h"
#include "agent/infer/model_loader.h"

namespace slipstream::agent::infer {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct LoadedFile {
    ModelWeights weights;
    std::unique_ptr<Tokenizer> tokenizer;
    ChatTemplate chat_template = ChatTemplate::from_name("chatml");
};

base::Result<LoadedFile> load_file(const std::string& path, const std::string& tokenizer_path) {
    LoadedFile out;
    if (ends_with(path, ".bin")) {
        SLIPSTREAM_ASSIGN_OR_RETURN(out.weights, load_llama2c_model(path));
        std::string tok = tokenizer_path;
        if (tok.empty()) tok = (std::filesystem::path(path).parent_path() / "tokenizer.bin").string();
        SLIPSTREAM_ASSIGN_OR_RETURN(out.tokenizer, Tokenizer::from_llama2c(tok, out.weights.config.vocab_size));
        out.chat_template = ChatTemplate::from_name("llama2");
    } else {
        SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<GgufFile> file, GgufFile::open(path));
        std::shared_ptr<const GgufFile> shared(std::move(file));
        SLIPSTREAM_ASSIGN_OR_RETURN(out.tokenizer, Tokenizer::from_gguf(*shared));
        out.chat_template = ChatTemplate::from_gguf(*shared);
        SLIPSTREAM_ASSIGN_OR_RETURN(out.weights, load_gguf_model(shared));
    }
    if (out.tokenizer->vocab_size() > out.weights.config.vocab_size)
        return base::Status::invalid_argument("the tokenizer has " + std::to_string(out.tokenizer->vocab_size()) +
                                              " tokens, the model's embeddings only " +
                                              std::to_string(out.weights.config.vocab_size));
    return out;
}

// Drafts are token ids the model verifies: they must mean the same text in both, or speculation is wasted (or,
// with a different tokenizer, meaningless).
base::Status check_draft(const LoadedFile& draft, const ModelConfig& model, const Tokenizer& tokenizer) {
    auto refuse = [](const std::string& what) {
        return base::Status::invalid_argument("the draft model does not fit the model: " + what);
    };
    if (draft.weights.config.vocab_size != model.vocab_size)
        return refuse("its vocabulary has " + std::to_string(draft.weights.config.vocab_size) +
                      " tokens, the model's " + std::to_string(model.vocab_size));
    const Tokenizer& t = *draft.tokenizer;
    if (t.vocab_size() != tokenizer.vocab_size())
        return refuse("its tokenizer has " + std::to_string(t.vocab_size()) + " tokens, the model's " +
                      std::to_string(tokenizer.vocab_size()));
    if (t.bos() != tokenizer.bos() || t.eos() != tokenizer.eos())
        return refuse("its tokenizer's BOS/EOS ids differ (" + std::to_string(t.bos()) + "/" + std::to_string(t.eos()) +
                      " against " + std::to_string(tokenizer.bos()) + "/" + std::to_string(tokenizer.eos()) + ")");
    for (int64_t id = 0; id < t.vocab_size(); ++id) {
        const auto token = static_cast<int32_t>(id);
        if (t.decode(token, true) != tokenizer.decode(token, true))
            return refuse("its tokenizer's token " + std::to_string(id) + " differs");
    }
    return base::Status::ok();
}

}  // namespace

base::Result<std::unique_ptr<InferenceEngine>> InferenceEngine::open(const std::string& path, EngineOptions options) {
    std::unique_ptr<InferenceEngine> engine(new InferenceEngine());
    SLIPSTREAM_ASSIGN_OR_RETURN(LoadedFile file, load_file(path, options.tokenizer_path));
    engine->tokenizer_ = std::move(file.tokenizer);
    engine->chat_template_ = std::move(file.chat_template);
    const bool use_draft = !options.draft_path.empty() && options.scheduler.speculative_draft > 0;
    if (use_draft && options.scheduler.speculative_ngram > 0)
        return base::Status::invalid_argument("a draft model and prompt-lookup speculation exclude each other");
    engine->model_id_ = options.model_id.empty() ? std::filesystem::path(path).stem().string() : options.model_id;
    try {
        engine->model_ = std::make_unique<LlamaModel>(std::move(file.weights), options.model);
    } catch (const std::invalid_argument& e) {
        return base::Status::invalid_argument(e.what());
    }
    std::unique_ptr<DraftProposer> drafter;
    if (use_draft) {
        auto draft = load_file(options.draft_path, "");
        if (!draft.is_ok()) return base::Status::invalid_argument("draft model " + draft.status().message());
        SLIPSTREAM_RETURN_IF_ERROR(check_draft(*draft, engine->model_->config(), *engine->tokenizer_));
        LlamaModelOptions draft_options;
        draft_options.block_size = options.model.block_size;
        draft_options.kv_cache_bytes = options.draft_kv_cache_bytes;
        draft_options.threads = options.model.threads;
        try {
            engine->draft_model_ = std::make_unique<LlamaModel>(std::move(draft->weights), draft_options);
        } catch (const std::invalid_argument& e) {
            return base::Status::invalid_argument(std::string("draft model: ") + e.what());
        }
        drafter = std::make_unique<DraftModelProposer>(*engine->draft_model_);
    }
    engine->created_ =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    engine->scheduler_ = std::make_unique<Scheduler>(*engine->model_, options.scheduler, std::move(drafter));
    engine->scheduler_->start();
    store::WorkerPoolOptions prep;
    prep.threads = std::max<std::size_t>(1, options.prep_threads);
    prep.max_queue = std::max<std::size_t>(1, options.max_pending_prep);
    prep.name = "ss-infer-prep";
    engine->prep_ = std::make_unique<store::WorkerPool>(prep);
    engine->mask_cache_schemas_ = options.mask_cache_schemas;
    engine->mask_cache_bytes_ = options.mask_cache_bytes;
    engine->mask_precompute_ = options.mask_precompute;
    engine->mask_pinned_bytes_ = options.mask_pinned_bytes;
    return engine;
}

std::shared_ptr<const TokenBytes> InferenceEngine::token_bytes() {
    std::call_once(token_bytes_once_, [this] {
        std::vector<std::string> bytes(static_cast<size_t>(model_->vocab_size()));
        const int64_t n = std::min(tokenizer_->vocab_size(), model_->vocab_size());
        for (int64_t t = 0; t < n; ++t)
            bytes[static_cast<size_t>(t)] = tokenizer_->decode(static_cast<int32_t>(t));
        token_bytes_ = std::make_shared<const TokenBytes>(std::move(bytes));
    });
    return token_bytes_;
}

std::shared_ptr<JsonMaskCache> InferenceEngine::mask_cache(
    const std::shared_ptr<const structured::CompiledSchema>& schema) {
    if (mask_cache_schemas_ == 0 || schema == nullptr) return nullptr;
    const std::shared_ptr<const TokenBytes> tokens = token_bytes();
    std::shared_ptr<JsonMaskCache> fresh;
    {
        std::lock_guard lock(mask_caches_mu_);
        for (auto it = mask_caches_.begin(); it != mask_caches_.end(); ++it) {
            if ((*it)->serves(schema.get(), tokens.get())) {
                mask_caches_.splice(mask_caches_.begin(), mask_caches_, it);
                return mask_caches_.front();
            }
        }
        fresh = std::make_shared<JsonMaskCache>(schema, tokens, mask_cache_bytes_, mask_pinned_bytes_);
        mask_caches_.push_front(fresh);
        while (mask_caches_.size() > mask_cache_schemas_)
            mask_caches_.pop_back();
    }
    // Best effort, off this thread: the requests meanwhile compute what they meet (the cache is shared).
    if (mask_precompute_ > 0) {
        const size_t masks = mask_precompute_;
        (void)prepare([fresh, tokens, schema, masks] {
            JsonConstraint start(tokens, schema, fresh);
            JsonConstraint::Precompute p;
            p.max_masks = masks;
            start.precompute(p);
        });
    }
    return fresh;
}

InferenceEngine::~InferenceEngine() {
    prep_.reset();
    if (scheduler_) scheduler_->stop();
}

base::Status InferenceEngine::prepare(std::function<void()> job) {
    return prep_->submit([job = std::move(job)](std::size_t) { job(); });
}

}  // namespace slipstream::agent::infer
