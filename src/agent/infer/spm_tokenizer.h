// SpmTokenizer: SentencePiece-style tokenization by scores (highest-scoring merge first) with byte fallback.
#pragma once

#include <string>

#include "agent/infer/tokenizer.h"
#include "agent/infer/tokenizer_vocab.h"

namespace slipstream::agent::infer::detail {

class SpmTokenizer final : public Tokenizer {
  public:
    /// tokenizer.ggml.model "llama": pieces use U+2581 for spaces; tokenizer.ggml.add_space_prefix (default true).
    static base::Result<std::unique_ptr<Tokenizer>> from_gguf(const GgufFile& file);
    /// llama2.c's tokenizer.bin: pieces use plain spaces, bos 1, eos 2, byte pieces <0xNN> at 3..258.
    static base::Result<std::unique_ptr<Tokenizer>> from_llama2c(const std::string& path, int64_t vocab_size);

    /// `space` is how pieces write a space ("\u2581" or " ").
    SpmTokenizer(TokenizerVocab vocab, std::string space, bool add_space_prefix);

    std::vector<int32_t> encode(std::string_view text, bool add_bos, bool parse_special) const override;
    std::string decode(int32_t token, bool render_special = false) const override;
    int64_t vocab_size() const override { return static_cast<int64_t>(vocab_.tokens.size()); }
    int32_t bos() const override { return vocab_.bos; }
    int32_t eos() const override { return vocab_.eos; }
    const std::vector<int32_t>& stop_tokens() const override { return vocab_.stop; }
    bool add_bos_default() const override { return vocab_.add_bos; }

  private:
    void encode_text(const std::string& text, std::vector<int32_t>& out) const;

    TokenizerVocab vocab_;
    std::string space_;
    bool add_space_prefix_;
    int32_t byte_tokens_[256];  // id of <0xNN>, or -1
};

}  // namespace slipstream::agent::infer::detail
