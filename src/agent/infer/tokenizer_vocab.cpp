// TokenizerVocab: reading tokenizer.ggml.* arrays, the stop set, and splitting text around special tokens.
#include "agent/infer/tokenizer_vocab.h"

#include <algorithm>

namespace slipstream::agent::infer::detail {

using base::Status;

base::Result<TokenizerVocab> TokenizerVocab::from_gguf(const GgufFile& file, int32_t default_bos, int32_t default_eos,
                                                       bool default_add_bos) {
    TokenizerVocab v;
    const auto* tokens = file.get_string_array("tokenizer.ggml.tokens");
    if (tokens == nullptr || tokens->empty()) {
        return Status::invalid_argument("tokenizer: tokenizer.ggml.tokens is missing or not a string array");
    }
    if (tokens->size() > (1u << 31) - 1) return Status::invalid_argument("tokenizer: vocabulary too large");
    v.tokens = *tokens;
    const std::size_t n = v.tokens.size();
    v.scores.assign(n, 0.0f);
    if (const auto* scores = file.get_float_array("tokenizer.ggml.scores")) {
        if (scores->size() != n) {
            return Status::invalid_argument("tokenizer: " + std::to_string(scores->size()) + " scores for " +
                                            std::to_string(n) + " tokens");
        }
        for (std::size_t i = 0; i < n; ++i)
            v.scores[i] = static_cast<float>((*scores)[i]);
    }
    v.types.assign(n, TokenType::kNormal);
    if (const auto* types = file.get_int_array("tokenizer.ggml.token_type")) {
        if (types->size() != n) {
            return Status::invalid_argument("tokenizer: " + std::to_string(types->size()) + " token types for " +
                                            std::to_string(n) + " tokens");
        }
        for (std::size_t i = 0; i < n; ++i) {
            const int64_t t = (*types)[i];
            if (t < 0 || t > static_cast<int64_t>(TokenType::kByte)) {
                return Status::invalid_argument("tokenizer: token " + std::to_string(i) + " has unknown type " +
                                                std::to_string(t));
            }
            v.types[i] = static_cast<TokenType>(t);
        }
    }
    auto id = [&](const char* key, int32_t fallback) -> base::Result<int32_t> {
        const std::optional<int64_t> x = file.get_int(key);
        if (!x) return v.valid(fallback) ? fallback : -1;
        if (*x < 0 || static_cast<uint64_t>(*x) >= n) {
            return Status::invalid_argument("tokenizer: " + std::string(key) + " = " + std::to_string(*x) +
                                            " is outside the vocabulary of " + std::to_string(n));
        }
        return static_cast<int32_t>(*x);
    };
    SLIPSTREAM_ASSIGN_OR_RETURN(v.bos, id("tokenizer.ggml.bos_token_id", default_bos));
    SLIPSTREAM_ASSIGN_OR_RETURN(v.eos, id("tokenizer.ggml.eos_token_id", default_eos));
    SLIPSTREAM_ASSIGN_OR_RETURN(v.unk, id("tokenizer.ggml.unknown_token_id", -1));
    SLIPSTREAM_ASSIGN_OR_RETURN(int32_t eot, id("tokenizer.ggml.eot_token_id", -1));
    SLIPSTREAM_ASSIGN_OR_RETURN(int32_t eom, id("tokenizer.ggml.eom_token_id", -1));
    v.add_bos = file.get_bool("tokenizer.ggml.add_bos_token").value_or(default_add_bos) && v.bos >= 0;
    v.index();
    for (int32_t s : {eot, eom}) {
        if (s >= 0 && std::find(v.stop.begin(), v.stop.end(), s) == v.stop.end()) v.stop.push_back(s);
    }
    return v;
}

void TokenizerVocab::index() {
    ids.clear();
    ids.reserve(tokens.size());
    specials.clear();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        ids.emplace(tokens[i], static_cast<int32_t>(i));  // the first of duplicate pieces wins
        if ((types[i] == TokenType::kControl || types[i] == TokenType::kUserDefined) && !tokens[i].empty()) {
            specials.push_back(static_cast<int32_t>(i));
        }
    }
    std::stable_sort(specials.begin(), specials.end(), [&](int32_t a, int32_t b) {
        return tokens[static_cast<std::size_t>(a)].size() > tokens[static_cast<std::size_t>(b)].size();
    });
    if (unk < 0) {
        for (std::size_t i = 0; i < types.size() && unk < 0; ++i) {
            if (types[i] == TokenType::kUnknown) unk = static_cast<int32_t>(i);
        }
    }
    stop.clear();
    if (eos >= 0) stop.push_back(eos);
    for (const char* name : {"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>"}) {
        const int32_t id = find(name);
        if (id >= 0 && std::find(stop.begin(), stop.end(), id) == stop.end()) stop.push_back(id);
    }
}

std::vector<TokenizerVocab::Fragment> TokenizerVocab::split_special(std::string_view text, bool parse_special) const {
    std::vector<Fragment> out;
    bool first_byte[256] = {};
    for (int32_t s : specials) {
        if (parse_special || type(s) == TokenType::kUserDefined) {
            first_byte[static_cast<uint8_t>(tokens[static_cast<std::size_t>(s)][0])] = true;
        }
    }
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size();) {
        int32_t hit = -1;
        if (first_byte[static_cast<uint8_t>(text[i])]) {
            for (int32_t s : specials) {
                const std::string& t = tokens[static_cast<std::size_t>(s)];
                if ((parse_special || type(s) == TokenType::kUserDefined) && text.substr(i, t.size()) == t) {
                    hit = s;
                    break;
                }
            }
        }
        if (hit < 0) {
            ++i;
            continue;
        }
        if (i > start) out.push_back({text.substr(start, i - start), -1});
        out.push_back({{}, hit});
        i += tokens[static_cast<std::size_t>(hit)].size();
        start = i;
    }
    if (start < text.size()) out.push_back({text.substr(start), -1});
    return out;
}

}  // namespace slipstream::agent::infer::detail
