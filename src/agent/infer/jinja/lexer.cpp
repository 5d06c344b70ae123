// Lexer: finds tags in the template data, applies whitespace control, and tokenizes the expressions inside tags.
#include "agent/infer/jinja/lexer.h"

#include <cerrno>
#include <cstdlib>

#include "json/utf8.h"

namespace slipstream::agent::infer::jinja {

using base::Status;

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
int hex_value(char c) {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

class Lexer {
  public:
    Lexer(std::string src, const LexOptions& o) : src_(std::move(src)), o_(o) {}

    base::Result<std::vector<Token>> run() {
        bool line_starting = true;
        while (pos_ < src_.size()) {
            const std::size_t open = find_tag(pos_);
            std::string text = src_.substr(pos_, open - pos_);
            if (open == src_.size()) {
                emit_text(std::move(text));
                pos_ = open;
                break;
            }
            const char type = src_[open + 1];  // '{', '%' or '#'
            const char sign = open + 2 < src_.size() ? src_[open + 2] : '\0';
            if (sign == '-') {
                std::size_t n = text.size();
                while (n > 0 && is_space(text[n - 1]))
                    --n;
                text.resize(n);
            } else if (sign != '+' && o_.lstrip_blocks && type != '{') {
                const std::size_t l_pos = text.rfind('\n') + 1;  // npos + 1 == 0
                if ((l_pos > 0 || line_starting) && l_pos < text.size()) {
                    bool blank = true;
                    for (std::size_t i = l_pos; i < text.size(); ++i)
                        blank = blank && is_space(text[i]);
                    if (blank) text.resize(l_pos);
                }
            }
            emit_text(std::move(text));
            line_ += count_lines(pos_, open);
            pos_ = open + 2 + (sign == '-' || sign == '+' ? 1 : 0);
            Status s = type == '#' ? skip_comment() : tag(type);
            if (!s.is_ok()) return s;
            line_starting = pos_ > 0 && src_[pos_ - 1] == '\n';
        }
        tokens_.push_back({TokenKind::kEof, "", 0, 0, line_});
        return std::move(tokens_);
    }

  private:
    std::size_t find_tag(std::size_t from) const {
        for (std::size_t i = from; i + 1 < src_.size(); ++i) {
            if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
        }
        return src_.size();
    }
    int count_lines(std::size_t from, std::size_t to) const {
        int n = 0;
        for (std::size_t i = from; i < to && i < src_.size(); ++i)
            n += src_[i] == '\n';
        return n;
    }
    void emit_text(std::string text) {
        if (!text.empty()) tokens_.push_back({TokenKind::kText, std::move(text), 0, 0, line_});
    }
    Status error(const std::string& what) const {
        return Status::invalid_argument("template line " + std::to_string(line_) + ": " + what);
    }

    // After a tag's closing marker: '-' strips all following whitespace, trim_blocks one newline (not after }}).
    void after_tag_end(bool minus, bool plus, bool block_or_comment) {
        if (minus) {
            while (pos_ < src_.size() && is_space(src_[pos_])) {
                line_ += src_[pos_] == '\n';
                ++pos_;
            }
        } else if (!plus && block_or_comment && o_.trim_blocks && pos_ < src_.size() && src_[pos_] == '\n') {
            ++line_;
            ++pos_;
        }
    }

    Status skip_comment() {
        const std::size_t end = src_.find("#}", pos_);
        if (end == std::string::npos) return error("comment not closed with #}");
        const bool minus = end > pos_ && src_[end - 1] == '-';
        const bool plus = end > pos_ && src_[end - 1] == '+';
        line_ += count_lines(pos_, end);
        pos_ = end + 2;
        after_tag_end(minus, plus, true);
        return Status::ok();
    }

    // Tokens inside {{ }} or {% %} until the closing marker at bracket depth 0.
    Status tag(char type) {
        const bool block = type == '%';
        const std::size_t first = tokens_.size();
        tokens_.push_back({block ? TokenKind::kBlockBegin : TokenKind::kVarBegin, "", 0, 0, line_});
        int depth = 0;
        for (;;) {
            while (pos_ < src_.size() && is_space(src_[pos_])) {
                line_ += src_[pos_] == '\n';
                ++pos_;
            }
            if (pos_ >= src_.size()) return error(block ? "tag not closed with %}" : "expression not closed with }}");
            if (depth == 0) {
                const char close = block ? '%' : '}';
                std::size_t at = pos_;
                const bool minus = src_[at] == '-', plus = block && src_[at] == '+';
                if (minus || plus) ++at;
                if (at + 1 < src_.size() && src_[at] == close && src_[at + 1] == '}') {
                    pos_ = at + 2;
                    tokens_.push_back({block ? TokenKind::kBlockEnd : TokenKind::kVarEnd, "", 0, 0, line_});
                    after_tag_end(minus, plus, block);
                    if (block) return maybe_raw(first);
                    return Status::ok();
                }
            }
            SLIPSTREAM_RETURN_IF_ERROR(one_token(depth));
        }
    }

    // {% raw %} ... {% endraw %}: the body is text.
    Status maybe_raw(std::size_t first) {
        if (tokens_.size() != first + 3 || tokens_[first + 1].kind != TokenKind::kName ||
            tokens_[first + 1].text != "raw") {
            return Status::ok();
        }
        tokens_.resize(first);
        for (std::size_t at = pos_;;) {
            const std::size_t open = src_.find("{%", at);
            if (open == std::string::npos) return error("raw block not closed with {% endraw %}");
            std::size_t i = open + 2;
            const bool minus = i < src_.size() && src_[i] == '-';
            if (minus || (i < src_.size() && src_[i] == '+')) ++i;
            while (i < src_.size() && is_space(src_[i]))
                ++i;
            if (src_.compare(i, 6, "endraw") != 0) {
                at = open + 2;
                continue;
            }
            i += 6;
            while (i < src_.size() && is_space(src_[i]))
                ++i;
            const bool end_minus = i < src_.size() && src_[i] == '-';
            if (end_minus) ++i;
            if (src_.compare(i, 2, "%}") != 0) return error("raw block not closed with {% endraw %}");
            std::string body = src_.substr(pos_, open - pos_);
            if (minus) {
                while (!body.empty() && is_space(body.back()))
                    body.pop_back();
            }
            line_ += count_lines(pos_, i + 2);
            emit_text(std::move(body));
            pos_ = i + 2;
            after_tag_end(end_minus, false, true);
            return Status::ok();
        }
    }

    Status one_token(int& depth) {
        const char c = src_[pos_];
        if (is_name_start(c)) {
            const std::size_t b = pos_;
            while (pos_ < src_.size() && (is_name_start(src_[pos_]) || is_digit(src_[pos_])))
                ++pos_;
            tokens_.push_back({TokenKind::kName, src_.substr(b, pos_ - b), 0, 0, line_});
            return Status::ok();
        }
        if (is_digit(c)) return number();
        if (c == '\'' || c == '"') return string(c);
        static constexpr std::string_view kTwo[] = {"//", "**", "==", "!=", "<=", ">="};
        for (std::string_view op : kTwo) {
            if (src_.compare(pos_, 2, op) == 0) {
                tokens_.push_back({TokenKind::kOp, std::string(op), 0, 0, line_});
                pos_ += 2;
                return Status::ok();
            }
        }
        if (std::string_view("+-*/%~<>=()[]{},.:|").find(c) == std::string_view::npos) {
            return error(std::string("unexpected character '") + c + "'");
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
        tokens_.push_back({TokenKind::kOp, std::string(1, c), 0, 0, line_});
        ++pos_;
        return Status::ok();
    }

    Status number() {
        std::string digits;
        bool is_float = false;
        auto take_digits = [&] {
            while (pos_ < src_.size() && (is_digit(src_[pos_]) || src_[pos_] == '_')) {
                if (src_[pos_] != '_') digits += src_[pos_];
                ++pos_;
            }
        };
        take_digits();
        if (pos_ + 1 < src_.size() && src_[pos_] == '.' && is_digit(src_[pos_ + 1])) {
            is_float = true;
            digits += src_[pos_++];
            take_digits();
        }
        if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
            std::size_t at = pos_ + 1;
            if (at < src_.size() && (src_[at] == '+' || src_[at] == '-')) ++at;
            if (at < src_.size() && is_digit(src_[at])) {
                is_float = true;
                digits += src_.substr(pos_, at - pos_);
                pos_ = at;
                take_digits();
            }
        }
        Token t{is_float ? TokenKind::kFloat : TokenKind::kInt, digits, 0, 0, line_};
        if (is_float) {
            t.float_value = std::strtod(digits.c_str(), nullptr);
        } else {
            errno = 0;
            t.int_value = std::strtoll(digits.c_str(), nullptr, 10);
            if (errno == ERANGE) return error("integer literal out of range");
        }
        tokens_.push_back(std::move(t));
        return Status::ok();
    }

    // Python string escapes; an unknown escape keeps its backslash.
    Status string(char quote) {
        std::string out;
        ++pos_;
        for (;;) {
            if (pos_ >= src_.size()) return error("string literal not closed");
            const char c = src_[pos_++];
            if (c == quote) break;
            line_ += c == '\n';
            if (c != '\\' || pos_ >= src_.size()) {
                out += c;
                continue;
            }
            const char e = src_[pos_++];
            switch (e) {
                case 'n':
                    out += '\n';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case '0':
                    out += '\0';
                    break;
                case 'a':
                    out += '\a';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'v':
                    out += '\v';
                    break;
                case '\n':
                    ++line_;
                    break;
                case '\\':
                case '\'':
                case '"':
                    out += e;
                    break;
                case 'x':
                case 'u':
                case 'U':
                    SLIPSTREAM_RETURN_IF_ERROR(hex_escape(e == 'x' ? 2 : e == 'u' ? 4 : 8, out));
                    break;
                default:
                    out += '\\';
                    out += e;
            }
        }
        tokens_.push_back({TokenKind::kString, std::move(out), 0, 0, line_});
        return Status::ok();
    }

    Status hex_escape(int n, std::string& out) {
        uint32_t cp = 0;
        for (int i = 0; i < n; ++i) {
            const int h = pos_ < src_.size() ? hex_value(src_[pos_]) : -1;
            if (h < 0) return error("truncated \\x, \\u or \\U escape in a string literal");
            cp = cp * 16 + static_cast<uint32_t>(h);
            ++pos_;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return error("escape is not a Unicode scalar value");
        char buf[4];
        out.append(buf, json::detail::encode_utf8(cp, buf));
        return Status::ok();
    }

    std::string src_;
    const LexOptions& o_;
    std::size_t pos_ = 0;
    int line_ = 1;
    std::vector<Token> tokens_;
};

std::string normalize_newlines(std::string_view s, bool keep_trailing_newline) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r') {
            out += '\n';
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else {
            out += s[i];
        }
    }
    if (!keep_trailing_newline && !out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

}  // namespace

base::Result<std::vector<Token>> tokenize(std::string_view source, const LexOptions& options) {
    return Lexer(normalize_newlines(source, options.keep_trailing_newline), options).run();
}

}  // namespace slipstream::agent::infer::jinja
