// The GPT-2, Llama 3 and Qwen2 pre-tokenizer regexes as hand-written matchers over code points.
#include "agent/infer/bpe_pretokenizer.h"

#include <cstdint>

#include "agent/infer/unicode_class.h"

namespace slipstream::agent::infer::detail {

namespace {

// The text as code points, with byte offsets; each alternative below returns the code points it matches at i
// (0 = no match), trying the regex's alternatives in order as the regex engine would.
class Matcher {
  public:
    explicit Matcher(std::string_view text) {
        for (std::size_t i = 0; i < text.size();) {
            const Utf8Char c = utf8_next(text, i);
            cps_.push_back(c.cp);
            offs_.push_back(i);
            i += c.len;
        }
        offs_.push_back(text.size());
    }

    std::size_t size() const { return cps_.size(); }
    std::size_t offset(std::size_t i) const { return offs_[i]; }

    bool letter(std::size_t i) const { return i < cps_.size() && is_letter(cps_[i]); }
    bool number(std::size_t i) const { return i < cps_.size() && is_number(cps_[i]); }
    bool space(std::size_t i) const { return i < cps_.size() && is_whitespace(cps_[i]); }
    bool newline(std::size_t i) const { return i < cps_.size() && (cps_[i] == '\r' || cps_[i] == '\n'); }
    bool other(std::size_t i) const { return i < cps_.size() && !space(i) && !letter(i) && !number(i); }
    bool is(std::size_t i, uint32_t c) const { return i < cps_.size() && cps_[i] == c; }
    bool is_ci(std::size_t i, char lower) const {
        return i < cps_.size() &&
               (cps_[i] == static_cast<uint32_t>(lower) || cps_[i] == static_cast<uint32_t>(lower - 32));
    }

    // 's|'t|'re|'ve|'m|'ll|'d, case-insensitive for Llama 3 / Qwen2.
    std::size_t contraction(std::size_t i, bool ci) const {
        if (!is(i, '\'')) return 0;
        auto c = [&](std::size_t k, char l) { return ci ? is_ci(k, l) : is(k, static_cast<uint32_t>(l)); };
        if (c(i + 1, 's') || c(i + 1, 't') || c(i + 1, 'm') || c(i + 1, 'd')) return 2;
        if ((c(i + 1, 'r') && c(i + 2, 'e')) || (c(i + 1, 'v') && c(i + 2, 'e')) || (c(i + 1, 'l') && c(i + 2, 'l'))) {
            return 3;
        }
        return 0;
    }

    template <typename Pred>
    std::size_t run(std::size_t i, Pred pred, std::size_t max = SIZE_MAX) const {
        std::size_t j = i;
        while (j < cps_.size() && j - i < max && pred(j))
            ++j;
        return j - i;
    }

    // " ?" then one or more of pred.
    template <typename Pred>
    std::size_t space_then(std::size_t i, Pred pred) const {
        const std::size_t s = is(i, ' ') ? 1 : 0;
        const std::size_t n = run(i + s, pred);
        return n == 0 ? 0 : s + n;
    }

    // \s+(?!\S): whitespace not followed by a non-space, i.e. a run minus its last char unless at the end.
    std::size_t space_not_before_word(std::size_t i) const {
        const std::size_t n = run(i, [&](std::size_t k) { return space(k); });
        if (n == 0) return 0;
        if (i + n == cps_.size()) return n;
        return n >= 2 ? n - 1 : 0;
    }

    // \s*[\r\n]+: whitespace up to and including the run's last newline.
    std::size_t space_to_newline(std::size_t i) const {
        const std::size_t n = run(i, [&](std::size_t k) { return space(k); });
        for (std::size_t k = n; k > 0; --k) {
            if (newline(i + k - 1)) return k;
        }
        return 0;
    }

    std::size_t gpt2(std::size_t i) const {
        if (std::size_t n = contraction(i, false)) return n;
        if (std::size_t n = space_then(i, [&](std::size_t k) { return letter(k); })) return n;
        if (std::size_t n = space_then(i, [&](std::size_t k) { return number(k); })) return n;
        if (std::size_t n = space_then(i, [&](std::size_t k) { return other(k); })) return n;
        if (std::size_t n = space_not_before_word(i)) return n;
        return run(i, [&](std::size_t k) { return space(k); });
    }

    std::size_t llama3(std::size_t i, std::size_t max_digits) const {
        if (std::size_t n = contraction(i, true)) return n;
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if (letter(i)) return run(i, [&](std::size_t k) { return letter(k); });
        if (i < cps_.size() && !newline(i) && !number(i) && letter(i + 1)) {
            return 1 + run(i + 1, [&](std::size_t k) { return letter(k); });
        }
        if (std::size_t n = run(
                i, [&](std::size_t k) { return number(k); }, max_digits))
            return n;
        // ?[^\s\p{L}\p{N}]+[\r\n]*
        if (std::size_t n = space_then(i, [&](std::size_t k) { return other(k); })) {
            return n + run(i + n, [&](std::size_t k) { return newline(k); });
        }
        if (std::size_t n = space_to_newline(i)) return n;
        if (std::size_t n = space_not_before_word(i)) return n;
        return run(i, [&](std::size_t k) { return space(k); });
    }

  private:
    std::vector<uint32_t> cps_;
    std::vector<std::size_t> offs_;
};

}  // namespace

std::optional<PreTokenizer> pre_tokenizer_from_name(std::string_view name) {
    if (name == "llama-bpe" || name == "llama3") return PreTokenizer::kLlama3;
    if (name == "qwen2") return PreTokenizer::kQwen2;
    if (name == "gpt2" || name == "default") return PreTokenizer::kGpt2;
    return std::nullopt;
}

std::vector<std::string_view> pre_tokenize(std::string_view text, PreTokenizer kind) {
    const Matcher m(text);
    std::vector<std::string_view> out;
    for (std::size_t i = 0; i < m.size();) {
        std::size_t n = 0;
        switch (kind) {
            case PreTokenizer::kGpt2:
                n = m.gpt2(i);
                break;
            case PreTokenizer::kLlama3:
                n = m.llama3(i, 3);
                break;
            case PreTokenizer::kQwen2:
                n = m.llama3(i, 1);
                break;
        }
        if (n == 0) n = 1;  // every code point matches some alternative; this only guards the loop
        out.push_back(text.substr(m.offset(i), m.offset(i + n) - m.offset(i)));
        i += n;
    }
    return out;
}

}  // namespace slipstream::agent::infer::detail
