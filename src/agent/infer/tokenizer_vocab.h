// TokenizerVocab: the pieces, scores, types and special ids both tokenizers share, and special-token splitting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/infer/gguf_file.h"
#include "base/result.h"

namespace slipstream::agent::infer::detail {

/// tokenizer.ggml.token_type values.
enum class TokenType : int32_t {
    kUndefined = 0,
    kNormal = 1,
    kUnknown = 2,
    kControl = 3,
    kUserDefined = 4,
    kUnused = 5,
    kByte = 6,
};

struct TokenizerVocab {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<TokenType> types;
    std::unordered_map<std::string, int32_t> ids;
    int32_t bos = -1;
    int32_t eos = -1;
    int32_t unk = -1;
    std::vector<int32_t> stop;
    bool add_bos = false;
    std::vector<int32_t> specials;  // control and user-defined tokens, longest text first

    /// Reads tokens, scores and types (both optional: 0 and normal), the special ids and add_bos_token;
    /// bos/eos default to the given ids when the metadata has none (and they are inside the vocabulary).
    static base::Result<TokenizerVocab> from_gguf(const GgufFile& file, int32_t default_bos, int32_t default_eos,
                                                  bool default_add_bos);
    /// After tokens/types/bos/eos are set: builds ids, specials and stop.
    void index();

    int32_t find(std::string_view text) const {
        auto it = ids.find(std::string(text));
        return it == ids.end() ? -1 : it->second;
    }
    bool valid(int32_t id) const { return id >= 0 && static_cast<std::size_t>(id) < tokens.size(); }
    TokenType type(int32_t id) const { return types[static_cast<std::size_t>(id)]; }

    /// Text between special tokens (token = -1), and the special tokens found (text empty). User-defined tokens
    /// always split; control tokens only when parse_special.
    struct Fragment {
        std::string_view text;
        int32_t token = -1;
    };
    std::vector<Fragment> split_special(std::string_view text, bool parse_special) const;
};

}  // namespace slipstream::agent::infer::detail
