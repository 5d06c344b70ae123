// BpeTokenizer: pre-tokenize, map bytes to GPT-2's printable alphabet, merge by rank (lowest first), look up ids.
#include "agent/infer/bpe_tokenizer.h"

#include <queue>

#include "agent/infer/unicode_class.h"

namespace slipstream::agent::infer::detail {

namespace {

// GPT-2's bytes_to_unicode: printable Latin-1 bytes map to themselves, the rest to U+0100 upwards.
void gpt2_byte_map(uint32_t (&map)[256]) {
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
        map[b] = printable ? b : next++;
    }
}

}  // namespace

base::Result<std::unique_ptr<Tokenizer>> BpeTokenizer::from_gguf(const GgufFile& file) {
    SLIPSTREAM_ASSIGN_OR_RETURN(TokenizerVocab vocab, TokenizerVocab::from_gguf(file, -1, -1, false));
    const auto* merges = file.get_string_array("tokenizer.ggml.merges");
    if (merges == nullptr) return base::Status::invalid_argument("tokenizer: gpt2 model without tokenizer.ggml.merges");
    std::unordered_map<std::string, int32_t> ranks;
    ranks.reserve(merges->size());
    for (std::size_t i = 0; i < merges->size(); ++i) {
        const std::string& m = (*merges)[i];
        const std::size_t sp = m.find(' ', 1);
        if (sp == std::string::npos || sp + 1 >= m.size()) {
            return base::Status::invalid_argument("tokenizer: merge " + std::to_string(i) + " ('" + m +
                                                  "') is not two space-separated pieces");
        }
        ranks.emplace(m, static_cast<int32_t>(i));
    }
    const std::string pre_name(file.get_string("tokenizer.ggml.pre").value_or("default"));
    const std::optional<PreTokenizer> pre = pre_tokenizer_from_name(pre_name);
    if (!pre) {
        return base::Status::invalid_argument("tokenizer: pre-tokenizer '" + pre_name +
                                              "' is not supported (llama-bpe, qwen2, gpt2 are)");
    }
    return std::unique_ptr<Tokenizer>(new BpeTokenizer(std::move(vocab), std::move(ranks), *pre));
}

BpeTokenizer::BpeTokenizer(TokenizerVocab vocab, std::unordered_map<std::string, int32_t> merge_ranks, PreTokenizer pre)
    : vocab_(std::move(vocab)), merge_ranks_(std::move(merge_ranks)), pre_(pre) {
    gpt2_byte_map(byte_to_cp_);
    for (uint32_t b = 0; b < 256; ++b)
        cp_to_byte_.emplace(byte_to_cp_[b], static_cast<uint8_t>(b));
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, bool add_bos, bool parse_special) const {
    std::vector<int32_t> out;
    if (add_bos && vocab_.bos >= 0) out.push_back(vocab_.bos);
    for (const auto& frag : vocab_.split_special(text, parse_special)) {
        if (frag.token >= 0) {
            out.push_back(frag.token);
            continue;
        }
        for (std::string_view piece : pre_tokenize(frag.text, pre_))
            encode_piece(piece, out);
    }
    return out;
}

// Merges with a heap of candidate pairs ordered by (rank, position), as HF tokenizers and llama.cpp do; a popped
// pair is skipped when either side has changed since it was pushed. O(n log n) in the piece's bytes.
void BpeTokenizer::encode_piece(std::string_view piece, std::vector<int32_t>& out) const {
    if (piece.empty()) return;
    struct Symbol {
        std::string text;  // in the byte-to-unicode alphabet
        int prev, next;
        std::size_t bytes;  // original bytes covered
    };
    std::vector<Symbol> sym;
    sym.reserve(piece.size());
    std::string whole;
    for (std::size_t i = 0; i < piece.size(); ++i) {
        std::string t;
        utf8_append(t, byte_to_cp_[static_cast<uint8_t>(piece[i])]);
        whole += t;
        sym.push_back({std::move(t), static_cast<int>(i) - 1, static_cast<int>(i + 1), 1});
    }
    sym.back().next = -1;
    // Llama 3's tokenizer ignores merges for a piece that is itself a token (HF "ignore_merges").
    if (pre_ == PreTokenizer::kLlama3) {
        if (const int32_t id = vocab_.find(whole); id >= 0) {
            out.push_back(id);
            return;
        }
    }

    struct Candidate {
        int32_t rank;
        int left;
        std::size_t left_len, right_len;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    std::string key;
    auto push = [&](int left) {
        if (left < 0 || sym[left].next < 0) return;
        const Symbol& l = sym[left];
        const Symbol& r = sym[l.next];
        key.assign(l.text).append(" ").append(r.text);
        auto it = merge_ranks_.find(key);
        if (it != merge_ranks_.end()) heap.push({it->second, left, l.text.size(), r.text.size()});
    };
    for (int i = 0; i + 1 < static_cast<int>(sym.size()); ++i)
        push(i);
    while (!heap.empty()) {
        const Candidate c = heap.top();
        heap.pop();
        Symbol& l = sym[c.left];
        if (l.text.empty() || l.next < 0 || l.text.size() != c.left_len || sym[l.next].text.size() != c.right_len) {
            continue;  // stale
        }
        Symbol& r = sym[l.next];
        l.text += r.text;
        l.bytes += r.bytes;
        r.text.clear();
        l.next = r.next;
        if (r.next >= 0) sym[r.next].prev = c.left;
        push(l.prev);
        push(c.left);
    }
    std::size_t byte_pos = 0;
    for (int i = 0; i >= 0; i = sym[i].next) {
        const int32_t id = vocab_.find(sym[i].text);
        if (id >= 0) {
            out.push_back(id);
        } else {
            // A merge result missing from the vocabulary: fall back to its single bytes.
            for (std::size_t k = 0; k < sym[i].bytes; ++k) {
                std::string t;
                utf8_append(t, byte_to_cp_[static_cast<uint8_t>(piece[byte_pos + k])]);
                const int32_t b = vocab_.find(t);
                if (b >= 0 || vocab_.unk >= 0) out.push_back(b >= 0 ? b : vocab_.unk);
            }
        }
        byte_pos += sym[i].bytes;
    }
}

std::string BpeTokenizer::decode(int32_t token, bool render_special) const {
    if (!vocab_.valid(token)) return {};
    const std::string& text = vocab_.tokens[static_cast<std::size_t>(token)];
    switch (vocab_.type(token)) {
        case TokenType::kControl:
        case TokenType::kUnknown:
        case TokenType::kUnused:
            return render_special ? text : std::string();
        case TokenType::kUserDefined:
            return text;
        default:
            break;
    }
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Char c = utf8_next(text, i);
        auto it = cp_to_byte_.find(c.cp);
        if (it != cp_to_byte_.end()) {
            out.push_back(static_cast<char>(it->second));
        } else {
            out.append(text, i, c.len);  // not in the byte alphabet: kept as written
        }
        i += c.len;
    }
    return out;
}

}  // namespace slipstream::agent::infer::detail
