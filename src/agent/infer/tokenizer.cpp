// Tokenizer factories: pick the byte-level BPE or SentencePiece implementation from the file's metadata.
#include "agent/infer/tokenizer.h"

#include "agent/infer/bpe_tokenizer.h"
#include "agent/infer/spm_tokenizer.h"

namespace slipstream::agent::infer {

base::Result<std::unique_ptr<Tokenizer>> Tokenizer::from_gguf(const GgufFile& file) {
    const std::optional<std::string_view> model = file.get_string("tokenizer.ggml.model");
    if (!model) return base::Status::invalid_argument("tokenizer: tokenizer.ggml.model is missing");
    if (*model == "gpt2") return detail::BpeTokenizer::from_gguf(file);
    if (*model == "llama") return detail::SpmTokenizer::from_gguf(file);
    return base::Status::invalid_argument("tokenizer: model '" + std::string(*model) +
                                          "' is not supported (gpt2, llama are)");
}

base::Result<std::unique_ptr<Tokenizer>> Tokenizer::from_llama2c(const std::string& path, int64_t vocab_size) {
    return detail::SpmTokenizer::from_llama2c(path, vocab_size);
}

}  // namespace slipstream::agent::infer
