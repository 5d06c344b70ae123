// Loading a model file into a serving engine: weights, tokenizer, chat template, KV cache, scheduler.
#include "agent/infer/inference_engine.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "agent/infer/gguf_file.h"
#include "agent/infer/model_loader.h"

namespace slipstream::agent::infer {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

base::Result<std::unique_ptr<InferenceEngine>> InferenceEngine::open(const std::string& path, EngineOptions options) {
    std::unique_ptr<InferenceEngine> engine(new InferenceEngine());
    ModelWeights weights;
    if (ends_with(path, ".bin")) {
        SLIPSTREAM_ASSIGN_OR_RETURN(weights, load_llama2c_model(path));
        std::string tok = options.tokenizer_path;
        if (tok.empty()) tok = (std::filesystem::path(path).parent_path() / "tokenizer.bin").string();
        SLIPSTREAM_ASSIGN_OR_RETURN(engine->tokenizer_, Tokenizer::from_llama2c(tok, weights.config.vocab_size));
        engine->chat_template_ = ChatTemplate::from_name("llama2");
    } else {
        SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<GgufFile> file, GgufFile::open(path));
        std::shared_ptr<const GgufFile> shared(std::move(file));
        SLIPSTREAM_ASSIGN_OR_RETURN(engine->tokenizer_, Tokenizer::from_gguf(*shared));
        engine->chat_template_ = ChatTemplate::from_gguf(*shared);
        SLIPSTREAM_ASSIGN_OR_RETURN(weights, load_gguf_model(shared));
    }
    if (engine->tokenizer_->vocab_size() > weights.config.vocab_size)
        return base::Status::invalid_argument("the tokenizer has " + std::to_string(engine->tokenizer_->vocab_size()) +
                                              " tokens, the model's embeddings only " +
                                              std::to_string(weights.config.vocab_size));
    engine->model_id_ = options.model_id.empty() ? std::filesystem::path(path).stem().string() : options.model_id;
    try {
        engine->model_ = std::make_unique<LlamaModel>(std::move(weights), options.model);
    } catch (const std::invalid_argument& e) {
        return base::Status::invalid_argument(e.what());
    }
    engine->created_ =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    engine->scheduler_ = std::make_unique<Scheduler>(*engine->model_, options.scheduler);
    engine->scheduler_->start();
    store::WorkerPoolOptions prep;
    prep.threads = std::max<std::size_t>(1, options.prep_threads);
    prep.max_queue = std::max<std::size_t>(1, options.max_pending_prep);
    prep.name = "ss-infer-prep";
    engine->prep_ = std::make_unique<store::WorkerPool>(prep);
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

InferenceEngine::~InferenceEngine() {
    prep_.reset();
    if (scheduler_) scheduler_->stop();
}

base::Status InferenceEngine::prepare(std::function<void()> job) {
    return prep_->submit([job = std::move(job)](std::size_t) { job(); });
}

}  // namespace slipstream::agent::infer
