// SpmTokenizer: symbols are code points; the adjacent pair whose concatenation is the highest-scoring piece merges
// first (ties: leftmost), as sentencepiece's BPE, llama.cpp and llama2.c do; unknown code points fall back to bytes.
#include "agent/infer/spm_tokenizer.h"

#include <cstdio>
#include <cstring>
#include <queue>

#include "agent/infer/unicode_class.h"

namespace slipstream::agent::infer::detail {

namespace {

// "<0xNN>" to NN, or -1.
int parse_byte_piece(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
    int v = 0;
    for (int i = 3; i < 5; ++i) {
        const char c = t[static_cast<std::size_t>(i)];
        const int d = (c >= '0' && c <= '9')   ? c - '0'
                      : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                      : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                                               : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s.substr(i, from.size()) == from) {
            out += to;
            i += from.size();
        } else {
            out += s[i++];
        }
    }
    return out;
}

}  // namespace

base::Result<std::unique_ptr<Tokenizer>> SpmTokenizer::from_gguf(const GgufFile& file) {
    SLIPSTREAM_ASSIGN_OR_RETURN(TokenizerVocab vocab, TokenizerVocab::from_gguf(file, 1, 2, true));
    const bool prefix = file.get_bool("tokenizer.ggml.add_space_prefix").value_or(true);
    return std::unique_ptr<Tokenizer>(new SpmTokenizer(std::move(vocab), "\xe2\x96\x81", prefix));
}

base::Result<std::unique_ptr<Tokenizer>> SpmTokenizer::from_llama2c(const std::string& path, int64_t vocab_size) {
    if (vocab_size <= 0 || vocab_size > (1 << 24)) {
        return base::Status::invalid_argument("tokenizer.bin: vocab size " + std::to_string(vocab_size) +
                                              " is out of range");
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return base::Status::from_errno("tokenizer.bin: open " + path, errno);
    TokenizerVocab v;
    int32_t max_len = 0;
    bool ok = std::fread(&max_len, 4, 1, f) == 1 && max_len > 0;
    for (int64_t i = 0; ok && i < vocab_size; ++i) {
        float score = 0;
        int32_t len = 0;
        ok = std::fread(&score, 4, 1, f) == 1 && std::fread(&len, 4, 1, f) == 1 && len >= 0 && len <= max_len;
        std::string piece(ok ? static_cast<std::size_t>(len) : 0, '\0');
        ok = ok && (len == 0 || std::fread(piece.data(), 1, piece.size(), f) == piece.size());
        v.tokens.push_back(std::move(piece));
        v.scores.push_back(score);
    }
    std::fclose(f);
    if (!ok) {
        return base::Status::invalid_argument("tokenizer.bin: " + path + " is truncated or malformed at token " +
                                              std::to_string(v.tokens.size() - 1));
    }
    v.types.assign(v.tokens.size(), TokenType::kNormal);
    v.types[0] = TokenType::kUnknown;
    v.unk = 0;
    for (std::size_t i = 1; i < 3 && i < v.types.size(); ++i)
        v.types[i] = TokenType::kControl;
    for (std::size_t i = 3; i < 259 && i < v.types.size(); ++i) {
        if (parse_byte_piece(v.tokens[i]) >= 0) v.types[i] = TokenType::kByte;
    }
    v.bos = vocab_size > 1 ? 1 : -1;
    v.eos = vocab_size > 2 ? 2 : -1;
    v.add_bos = v.bos >= 0;
    v.index();
    return std::unique_ptr<Tokenizer>(new SpmTokenizer(std::move(v), " ", true));
}

SpmTokenizer::SpmTokenizer(TokenizerVocab vocab, std::string space, bool add_space_prefix)
    : vocab_(std::move(vocab)), space_(std::move(space)), add_space_prefix_(add_space_prefix) {
    std::fill(std::begin(byte_tokens_), std::end(byte_tokens_), -1);
    for (std::size_t i = 0; i < vocab_.tokens.size(); ++i) {
        if (vocab_.types[i] != TokenType::kByte) continue;
        const int b = parse_byte_piece(vocab_.tokens[i]);
        if (b >= 0 && byte_tokens_[b] < 0) byte_tokens_[b] = static_cast<int32_t>(i);
    }
}

std::vector<int32_t> SpmTokenizer::encode(std::string_view text, bool add_bos, bool parse_special) const {
    std::vector<int32_t> out;
    if (add_bos && vocab_.bos >= 0) out.push_back(vocab_.bos);
    // As llama.cpp: the first text fragment, and each one after a special token, gets the dummy-prefix space.
    bool prev_special = true;
    for (const auto& frag : vocab_.split_special(text, parse_special)) {
        if (frag.token >= 0) {
            out.push_back(frag.token);
            prev_special = true;
            continue;
        }
        std::string t = add_space_prefix_ && prev_special ? " " : "";
        t += frag.text;
        encode_text(space_ == " " ? t : replace_all(t, " ", space_), out);
        prev_special = false;
    }
    return out;
}

void SpmTokenizer::encode_text(const std::string& text, std::vector<int32_t>& out) const {
    struct Symbol {
        std::size_t start, len;
        int prev, next;
    };
    std::vector<Symbol> sym;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8_next(text, i).len;
        sym.push_back({i, n, static_cast<int>(sym.size()) - 1, static_cast<int>(sym.size()) + 1});
        i += n;
    }
    if (sym.empty()) return;
    sym.back().next = -1;

    struct Candidate {
        float score;
        int left;
        std::size_t len;  // of the merged text, to detect stale entries
        bool operator<(const Candidate& o) const { return score != o.score ? score < o.score : left > o.left; }
    };
    std::priority_queue<Candidate> heap;
    auto push = [&](int left) {
        if (left < 0 || sym[left].next < 0) return;
        const Symbol& l = sym[left];
        const Symbol& r = sym[l.next];
        const int32_t id = vocab_.find(std::string_view(text).substr(l.start, l.len + r.len));
        if (id >= 0) heap.push({vocab_.scores[static_cast<std::size_t>(id)], left, l.len + r.len});
    };
    for (int i = 0; i + 1 < static_cast<int>(sym.size()); ++i)
        push(i);
    while (!heap.empty()) {
        const Candidate c = heap.top();
        heap.pop();
        Symbol& l = sym[c.left];
        if (l.len == 0 || l.next < 0 || l.len + sym[l.next].len != c.len) continue;  // stale
        Symbol& r = sym[l.next];
        l.len += r.len;
        r.len = 0;
        l.next = r.next;
        if (r.next >= 0) sym[r.next].prev = c.left;
        push(l.prev);
        push(c.left);
    }
    for (int i = 0; i >= 0; i = sym[i].next) {
        const std::string_view piece = std::string_view(text).substr(sym[i].start, sym[i].len);
        const int32_t id = vocab_.find(piece);
        if (id >= 0) {
            out.push_back(id);
            continue;
        }
        for (char ch : piece) {
            const int32_t b = byte_tokens_[static_cast<uint8_t>(ch)];
            if (b >= 0) {
                out.push_back(b);
            } else if (vocab_.unk >= 0) {
                out.push_back(vocab_.unk);
                break;  // one unknown per code point, as sentencepiece without byte fallback
            }
        }
    }
}

std::string SpmTokenizer::decode(int32_t token, bool render_special) const {
    if (!vocab_.valid(token)) return {};
    const std::string& text = vocab_.tokens[static_cast<std::size_t>(token)];
    switch (vocab_.type(token)) {
        case TokenType::kControl:
        case TokenType::kUnknown:
        case TokenType::kUnused:
            return render_special ? text : std::string();
        case TokenType::kUserDefined:
            return text;
        case TokenType::kByte: {
            const int b = parse_byte_piece(text);
            return b >= 0 ? std::string(1, static_cast<char>(b)) : text;
        }
        default:
            return space_ == " " ? text : replace_all(text, space_, " ");
    }
}

}  // namespace slipstream::agent::infer::detail
