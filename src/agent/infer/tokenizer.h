// Tokenizer: text to token ids and back, as the model's vocabulary says (byte-level BPE or SentencePiece).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/infer/gguf_file.h"
#include "base/result.h"

namespace slipstream::agent::infer {

class Tokenizer {
  public:
    virtual ~Tokenizer() = default;

    /// From tokenizer.ggml.* metadata: model "gpt2" (byte-level BPE with merges and the pre-tokenizer named by
    /// tokenizer.ggml.pre: llama3/qwen2/gpt2 regexes) or "llama" (SentencePiece scores + byte fallback).
    static base::Result<std::unique_ptr<Tokenizer>> from_gguf(const GgufFile& file);
    /// From llama2.c's tokenizer.bin (SentencePiece pieces and scores).
    static base::Result<std::unique_ptr<Tokenizer>> from_llama2c(const std::string& path, int64_t vocab_size);

    /// Token ids of text; special-token strings in the text (e.g. "<|im_end|>") become their ids when
    /// parse_special is true (chat templates), else they are tokenized as plain text.
    virtual std::vector<int32_t> encode(std::string_view text, bool add_bos, bool parse_special) const = 0;
    /// The bytes of one token (a byte-fallback token is its byte; special tokens render as their text only when
    /// render_special). Bytes may be a partial UTF-8 sequence: callers join tokens before emitting text.
    virtual std::string decode(int32_t token, bool render_special = false) const = 0;

    virtual int64_t vocab_size() const = 0;
    virtual int32_t bos() const = 0;  // -1 when none
    virtual int32_t eos() const = 0;
    /// End-of-generation tokens: eos plus eot/eom/<|im_end|>-style ids the metadata or vocabulary name.
    virtual const std::vector<int32_t>& stop_tokens() const = 0;
    virtual bool add_bos_default() const = 0;  // tokenizer.ggml.add_bos_token
};

}  // namespace slipstream::agent::infer
