// pre_tokenize: splits text into the pieces a byte-level BPE encodes separately, as the GPT-2 / Llama 3 / Qwen2
// regexes do (matched by hand: no regex engine).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace slipstream::agent::infer::detail {

enum class PreTokenizer {
    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
    kGpt2,
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|
    // \s+(?!\S)|\s+
    kLlama3,
    // As kLlama3 with \p{N} (one digit per piece).
    kQwen2,
};

/// tokenizer.ggml.pre to a pre-tokenizer: "llama-bpe"/"llama3", "qwen2", "gpt2"/"default"; nullopt otherwise.
std::optional<PreTokenizer> pre_tokenizer_from_name(std::string_view name);

/// The pieces of text, in order; their concatenation is text. Letters and numbers are the Unicode classes of
/// unicode_class.h.
std::vector<std::string_view> pre_tokenize(std::string_view text, PreTokenizer kind);

}  // namespace slipstream::agent::infer::detail
