// The strict fallback parser: an explicit-stack state machine with Python json's error messages and positions.
#include "json/strict_parser.h"

#include <charconv>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "json/member_dedupe.h"
#include "json/utf8.h"

namespace slipstream::json::detail {

namespace {

bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// True when a number that std::from_chars found out of range is too large (not too small) for a double:
// the decimal exponent of its leading digit decides (out of range means beyond 1e308 or below 1e-324).
bool overflows_double(std::string_view tok) {
    std::size_t i = tok[0] == '-' ? 1 : 0;
    std::size_t int_len = 0;
    while (i + int_len < tok.size() && is_digit(tok[i + int_len]))
        ++int_len;
    long long mag = 0;
    bool nonzero = false;
    for (std::size_t k = 0; k < int_len && !nonzero; ++k) {
        if (tok[i + k] != '0') {
            nonzero = true;
            mag = static_cast<long long>(int_len - 1 - k);
        }
    }
    std::size_t j = i + int_len;
    if (j < tok.size() && tok[j] == '.') {
        long long f = 0;
        for (++j; j < tok.size() && is_digit(tok[j]); ++j) {
            ++f;
            if (!nonzero && tok[j] != '0') {
                nonzero = true;
                mag = -f;
            }
        }
    }
    if (!nonzero) return false;
    if (j < tok.size() && (tok[j] == 'e' || tok[j] == 'E')) {
        ++j;
        const bool neg = j < tok.size() && tok[j] == '-';
        if (j < tok.size() && (tok[j] == '-' || tok[j] == '+')) ++j;
        long long e = 0;
        for (; j < tok.size(); ++j)
            e = std::min(e * 10 + (tok[j] - '0'), 1'000'000'000LL);
        mag += neg ? -e : e;
    }
    return mag > 0;
}

class StrictParser {
  public:
    StrictParser(std::string_view text, base::Arena& arena, const ParseOptions& options)
        : text_(text), arena_(arena), options_(options) {}

    base::Result<const Value*> run(ParseError* error);

  private:
    struct Frame {
        bool object;
        std::size_t start;  // first index in items_ or members_
    };

    bool fail(std::size_t offset, ParseErrorKind kind, std::string message) {
        error_.offset = offset;
        error_.kind = kind;
        error_.message = std::move(message);
        return false;
    }
    bool syntax(std::size_t offset, const char* message) { return fail(offset, ParseErrorKind::kSyntax, message); }
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
    void skip_ws() {
        while (pos_ < text_.size() && is_ws(text_[pos_]))
            ++pos_;
    }

    bool read_value(Value* v, bool* complete);
    bool open(bool object);
    bool close(Value* v);
    bool read_key();
    bool read_literal(std::string_view word, Value value, Value* v);
    bool read_string(std::string_view* out);
    bool read_unicode_escape(std::size_t backslash, std::size_t* next);
    bool read_number(Value* v);

    std::string_view text_;
    base::Arena& arena_;
    const ParseOptions& options_;
    std::size_t pos_ = 0;
    ParseError error_;
    std::vector<Frame> frames_;
    std::vector<Value> items_;              // elements of the open arrays, innermost last
    std::vector<Member> members_;           // members of the open objects, innermost last
    std::vector<std::size_t> key_offsets_;  // parallel to members_, for duplicate-key errors
    std::string scratch_;                   // unescaped string being built
};

base::Result<const Value*> StrictParser::run(ParseError* error) {
    bool ok = true;
    Value v;
    if (std::size_t bad = find_invalid_utf8(text_); bad != text_.size()) {
        ok = fail(bad, ParseErrorKind::kEncoding, "Invalid UTF-8");
    }
    skip_ws();
    bool complete = false;
    while (ok) {
        // Phase 1: a value is expected at pos_; containers open here and their first element follows.
        if (!complete) {
            ok = read_value(&v, &complete);
            continue;
        }
        // Phase 2: `v` is complete; it is the root or joins the innermost open container.
        if (frames_.empty()) {
            skip_ws();
            if (pos_ != text_.size()) {
                ok = syntax(pos_, "Extra data");
                break;
            }
            Value* root = arena_.make<Value>(v);
            return static_cast<const Value*>(root);
        }
        const Frame& f = frames_.back();
        if (f.object) {
            members_.back().value = v;
        } else {
            items_.push_back(v);
        }
        skip_ws();
        if (at(',')) {
            ++pos_;
            skip_ws();
            complete = false;
            if (f.object) ok = read_key();
        } else if (at(f.object ? '}' : ']')) {
            ++pos_;
            ok = close(&v);
        } else {
            ok = syntax(pos_, "Expecting ',' delimiter");
        }
    }
    if (error != nullptr) *error = error_;
    return parse_error_status(error_);
}

bool StrictParser::read_value(Value* v, bool* complete) {
    if (!frames_.empty() && !frames_.back().object && items_.size() - frames_.back().start >= options_.max_members) {
        return fail(pos_, ParseErrorKind::kLimit,
                    "Array has more than " + std::to_string(options_.max_members) + " elements");
    }
    *complete = true;
    switch (peek()) {
        case '[':
        case '{': {
            const bool object = peek() == '{';
            if (!open(object)) return false;
            skip_ws();
            if (at(object ? '}' : ']')) {
                ++pos_;
                return close(v);
            }
            *complete = false;
            return object ? read_key() : true;
        }
        case '"': {
            std::string_view s;
            if (!read_string(&s)) return false;
            *v = Value::string(s);
            return true;
        }
        case 'n':
            return read_literal("null", Value::null(), v);
        case 't':
            return read_literal("true", Value::boolean(true), v);
        case 'f':
            return read_literal("false", Value::boolean(false), v);
        default:
            return read_number(v);
    }
}

bool StrictParser::open(bool object) {
    if (frames_.size() >= options_.max_depth) {
        return fail(pos_, ParseErrorKind::kLimit, "Nesting deeper than " + std::to_string(options_.max_depth));
    }
    frames_.push_back({object, object ? members_.size() : items_.size()});
    ++pos_;
    return true;
}

bool StrictParser::close(Value* v) {
    const Frame f = frames_.back();
    frames_.pop_back();
    if (!f.object) {
        const std::size_t n = items_.size() - f.start;
        Value* out = n == 0 ? nullptr : static_cast<Value*>(arena_.allocate(n * sizeof(Value), alignof(Value)));
        std::uninitialized_copy_n(items_.data() + f.start, n, out);
        items_.resize(f.start);
        *v = Value::array(out, static_cast<std::uint32_t>(n));
        return true;
    }
    const auto n = static_cast<std::uint32_t>(members_.size() - f.start);
    const DedupeResult d = dedupe_members(members_.data() + f.start, n, options_.duplicate_keys);
    if (d.duplicate != DedupeResult::kNone) {
        std::string_view key = members_[f.start + d.duplicate].key;
        std::string message = "Duplicate key \"";
        if (key.size() > 40) {
            std::size_t cut = 40;
            while (cut > 0 && (static_cast<unsigned char>(key[cut]) & 0xC0) == 0x80)
                --cut;
            message.append(key.substr(0, cut)).append("...");
        } else {
            message.append(key);
        }
        return fail(key_offsets_[f.start + d.duplicate], ParseErrorKind::kDuplicateKey, message + "\"");
    }
    Member* out =
        d.size == 0 ? nullptr : static_cast<Member*>(arena_.allocate(d.size * sizeof(Member), alignof(Member)));
    std::uninitialized_copy_n(members_.data() + f.start, d.size, out);
    members_.resize(f.start);
    key_offsets_.resize(f.start);
    *v = Value::object(out, d.size);
    return true;
}

bool StrictParser::read_key() {
    if (!at('"')) return syntax(pos_, "Expecting property name enclosed in double quotes");
    if (members_.size() - frames_.back().start >= options_.max_members) {
        return fail(pos_, ParseErrorKind::kLimit,
                    "Object has more than " + std::to_string(options_.max_members) + " members");
    }
    const std::size_t key_offset = pos_;
    std::string_view key;
    if (!read_string(&key)) return false;
    skip_ws();
    if (!at(':')) return syntax(pos_, "Expecting ':' delimiter");
    ++pos_;
    skip_ws();
    members_.push_back({key, Value::null()});
    key_offsets_.push_back(key_offset);
    return true;
}

bool StrictParser::read_literal(std::string_view word, Value value, Value* v) {
    if (text_.substr(pos_, word.size()) != word) return syntax(pos_, "Expecting value");
    pos_ += word.size();
    *v = value;
    return true;
}

bool StrictParser::read_string(std::string_view* out) {
    const std::size_t start = pos_;
    std::size_t i = start + 1;
    bool escaped = false;
    for (;;) {
        std::size_t j = i;
        while (j < text_.size() && text_[j] != '"' && text_[j] != '\\' && static_cast<unsigned char>(text_[j]) >= 0x20)
            ++j;
        if (j == text_.size()) return syntax(start, "Unterminated string starting at");
        if (static_cast<unsigned char>(text_[j]) < 0x20) return syntax(j, "Invalid control character at");
        if (escaped) scratch_.append(text_.substr(i, j - i));
        if (text_[j] == '"') {
            const std::string_view raw = escaped ? std::string_view(scratch_) : text_.substr(start + 1, j - start - 1);
            if (raw.size() > options_.max_string_bytes) {
                return fail(start, ParseErrorKind::kLimit,
                            "String longer than " + std::to_string(options_.max_string_bytes) + " bytes");
            }
            *out = arena_.copy(raw);
            pos_ = j + 1;
            return true;
        }
        // A backslash escape.
        if (!escaped) {
            escaped = true;
            scratch_.assign(text_.substr(start + 1, j - start - 1));
        }
        if (j + 1 == text_.size()) return syntax(start, "Unterminated string starting at");
        char c;
        switch (text_[j + 1]) {
            case '"':
                c = '"';
                break;
            case '\\':
                c = '\\';
                break;
            case '/':
                c = '/';
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'n':
                c = '\n';
                break;
            case 'r':
                c = '\r';
                break;
            case 't':
                c = '\t';
                break;
            case 'u':
                if (!read_unicode_escape(j, &i)) return false;
                continue;
            default:
                return syntax(j, "Invalid \\escape");
        }
        scratch_.push_back(c);
        i = j + 2;
    }
}

// `backslash` is at "\u"; appends the code point (joining a surrogate pair) to scratch_. Positions follow
// CPython's scanstring: errors point at the 'u', and a \u escape must be followed by one more character.
bool StrictParser::read_unicode_escape(std::size_t backslash, std::size_t* next) {
    const auto hex4 = [&](std::size_t u, std::uint32_t* cp) {
        if (u + 5 >= text_.size()) return syntax(u, "Invalid \\uXXXX escape");
        *cp = 0;
        for (std::size_t k = u + 1; k <= u + 4; ++k) {
            const int h = hex_value(text_[k]);
            if (h < 0) return syntax(u, "Invalid \\uXXXX escape");
            *cp = (*cp << 4) | static_cast<std::uint32_t>(h);
        }
        return true;
    };
    const std::size_t u = backslash + 1;
    std::uint32_t cp = 0;
    if (!hex4(u, &cp)) return false;
    std::size_t end = u + 5;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        std::uint32_t low = 0;
        if (end + 1 < text_.size() && text_[end] == '\\' && text_[end + 1] == 'u') {
            if (!hex4(end + 1, &low)) return false;
            if (low >= 0xDC00 && low <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                end += 6;
            }
        }
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) return syntax(u, "Lone surrogate in \\uXXXX escape");
    char buf[4];
    scratch_.append(buf, encode_utf8(cp, buf));
    *next = end;
    return true;
}

// Scans like CPython's number matcher (longest valid prefix: "1." is 1 then "."), then converts: int64, else
// uint64, else an exact kBigInt for other integers; numbers with a fraction or exponent are doubles (beyond the
// double range is an error).
bool StrictParser::read_number(Value* v) {
    const std::size_t start = pos_, n = text_.size();
    std::size_t i = start;
    if (i < n && text_[i] == '-') ++i;
    if (i < n && text_[i] >= '1' && text_[i] <= '9') {
        while (i < n && is_digit(text_[i]))
            ++i;
    } else if (i < n && text_[i] == '0') {
        ++i;
    } else {
        return syntax(start, "Expecting value");
    }
    bool is_float = false;
    if (i + 1 < n && text_[i] == '.' && is_digit(text_[i + 1])) {
        is_float = true;
        for (i += 2; i < n && is_digit(text_[i]);)
            ++i;
    }
    if (i + 1 < n && (text_[i] == 'e' || text_[i] == 'E')) {
        const std::size_t e = i++;
        if (text_[i] == '-' || text_[i] == '+') ++i;
        const std::size_t digits = i;
        while (i < n && is_digit(text_[i]))
            ++i;
        if (i > digits) {
            is_float = true;
        } else {
            i = e;
        }
    }
    pos_ = i;
    const char* first = text_.data() + start;
    const char* last = text_.data() + i;
    if (!is_float) {
        std::int64_t s = 0;
        if (std::from_chars(first, last, s).ec == std::errc()) {
            *v = Value::integer(s);
            return true;
        }
        std::uint64_t u = 0;
        if (*first != '-' && std::from_chars(first, last, u).ec == std::errc()) {
            *v = Value::unsigned_integer(u);
            return true;
        }
        // Beyond 64 bits: exact, as Python's int, up to Python's digit limit (json.loads raises ValueError).
        const std::size_t digits = i - start - (*first == '-' ? 1 : 0);
        if (digits > options_.max_integer_digits) {
            return fail(start, ParseErrorKind::kLimit,
                        "Integer longer than " + std::to_string(options_.max_integer_digits) + " digits");
        }
        *v = Value::big_integer(arena_.copy(text_.substr(start, i - start)));
        return true;
    }
    double d = 0;
    if (std::from_chars(first, last, d).ec == std::errc::result_out_of_range) {
        if (overflows_double(text_.substr(start, i - start))) return syntax(start, "Number out of range");
        d = *first == '-' ? -0.0 : 0.0;
    }
    *v = Value::number(d);
    return true;
}

}  // namespace

base::Result<const Value*> parse_strict(std::string_view text, base::Arena& arena, const ParseOptions& options,
                                        ParseError* error) {
    return StrictParser(text, arena, options).run(error);
}

base::Status parse_error_status(const ParseError& error) {
    std::string message = error.message + " at byte " + std::to_string(error.offset);
    if (error.kind == ParseErrorKind::kLimit) return base::Status::out_of_range(std::move(message));
    return base::Status::invalid_argument(std::move(message));
}

}  // namespace slipstream::json::detail
