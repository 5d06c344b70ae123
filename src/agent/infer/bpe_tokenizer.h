// BpeTokenizer: byte-level BPE (GPT-2 byte-to-unicode alphabet, ranked merges, a named pre-tokenizer).
#pragma once

#include <string>
#include <unordered_map>

#include "agent/infer/bpe_pretokenizer.h"
#include "agent/infer/tokenizer.h"
#include "agent/infer/tokenizer_vocab.h"

namespace slipstream::agent::infer::detail {

class BpeTokenizer final : public Tokenizer {
  public:
    /// Requires tokenizer.ggml.merges ("a b" strings) and a known tokenizer.ggml.pre (absent = gpt2).
    static base::Result<std::unique_ptr<Tokenizer>> from_gguf(const GgufFile& file);
    BpeTokenizer(TokenizerVocab vocab, std::unordered_map<std::string, int32_t> merge_ranks, PreTokenizer pre);

    std::vector<int32_t> encode(std::string_view text, bool add_bos, bool parse_special) const override;
    std::string decode(int32_t token, bool render_special = false) const override;
    int64_t vocab_size() const override { return static_cast<int64_t>(vocab_.tokens.size()); }
    int32_t bos() const override { return vocab_.bos; }
    int32_t eos() const override { return vocab_.eos; }
    const std::vector<int32_t>& stop_tokens() const override { return vocab_.stop; }
    bool add_bos_default() const override { return vocab_.add_bos; }

  private:
    void encode_piece(std::string_view piece, std::vector<int32_t>& out) const;

    TokenizerVocab vocab_;
    std::unordered_map<std::string, int32_t> merge_ranks_;  // "left right" -> rank
    PreTokenizer pre_;
    uint32_t byte_to_cp_[256];
    std::unordered_map<uint32_t, uint8_t> cp_to_byte_;
};

}  // namespace slipstream::agent::infer::detail
