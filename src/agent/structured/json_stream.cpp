// JsonStream: a byte-at-a-time state machine (runs of plain string bytes copied at once) that never looks back.
#include "agent/structured/json_stream.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "agent/structured/string_run.h"

namespace slipstream::agent::structured {
namespace {

using json::ParseErrorKind;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A number's grammar (RFC 8259), one state per position.
enum NumberState : std::uint8_t {
    kMinus = 1,     // after '-': a digit must come
    kZero,          // a leading 0: '.', 'e' or the end
    kInteger,       // integer digits
    kDot,           // after '.': a digit must come
    kFraction,      // fraction digits
    kExponent,      // after 'e': a sign or a digit
    kExponentSign,  // after the sign: a digit
    kExponentDigits,
};

bool number_can_end(std::uint8_t s) {
    return s == kZero || s == kInteger || s == kFraction || s == kExponentDigits;
}

}  // namespace

JsonStream::JsonStream(JsonEvents* events, json::ParseOptions options) : events_(events), options_(options) {}

StreamState JsonStream::feed(std::string_view chunk) {
    const char* p = chunk.data();
    const char* end = p + chunk.size();
    while (state_ != StreamState::kInvalid && p < end) {
        if (!step(p, end)) return state_;
    }
    // What the chunk decoded of an open string goes out now (an incomplete UTF-8 sequence stays behind).
    if (state_ != StreamState::kInvalid && mode_ == Mode::kString && !chunk.empty() && !flush_string(false)) {
        error_.offset = offset_ - 1;  // the piece's last byte is the one that proved the events' refusal
    }
    return state_;
}

StreamState JsonStream::finish() {
    if (state_ != StreamState::kPartial) return state_;
    switch (mode_) {
        case Mode::kNumber:
            if (!number_can_end(number_state_)) {
                fail(ParseErrorKind::kSyntax, "Expecting value");
            } else if (end_number()) {
                if (state_ != StreamState::kComplete) fail(ParseErrorKind::kSyntax, "Expecting ',' delimiter");
            }
            break;
        case Mode::kString:
            fail_at(string_start_, ParseErrorKind::kSyntax, "Unterminated string starting at");
            break;
        case Mode::kObjectKeyOrEnd:
        case Mode::kObjectKey:
            fail(ParseErrorKind::kSyntax, "Expecting property name enclosed in double quotes");
            break;
        case Mode::kColon:
            fail(ParseErrorKind::kSyntax, "Expecting ':' delimiter");
            break;
        case Mode::kAfterValue:
            fail(ParseErrorKind::kSyntax, "Expecting ',' delimiter");
            break;
        default:
            fail(ParseErrorKind::kSyntax, "Expecting value");
            break;
    }
    return state_;
}

void JsonStream::container_state(std::string& out) const {
    window_state(out, SIZE_MAX, 0);
}

void JsonStream::window_state(std::string& out, std::size_t window, std::size_t open_cap) const {
    const std::size_t depth = stack_.size();
    const std::size_t from = depth > window ? depth - window : 0;
    if (from > 0) {  // only the innermost `window` containers, and the depth where the limit is near
        out.push_back('~');
        const std::size_t near = depth + open_cap >= options_.max_depth ? depth : 0;
        out.append(reinterpret_cast<const char*>(&near), sizeof near);
    }
    out.append(stack_.data() + from, depth - from);
    out.push_back('|');
    for (std::size_t i = from; i < count_.size(); ++i) {
        const std::size_t n = count_[i];
        const std::size_t near = n + 4096 >= options_.max_members ? n : 0;  // counts matter only near the limit
        out.append(reinterpret_cast<const char*>(&near), sizeof near);
    }
    out.push_back(in_key_ ? 'k' : 'v');
}

void JsonStream::state_key(std::string& out, bool text_free, std::size_t number_shape_below, std::size_t room_cap,
                           std::size_t window, std::size_t open_cap) const {
    const auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(state_);
    put(mode_);
    window_state(out, window, open_cap);
    put(bom_seen_);
    put(offset_ == 0);
    if (mode_ == Mode::kString) {
        put(std::min(string_room(), room_cap));
        put(escape_);
        // What an escape or a UTF-8 sequence left behind matters only while the next one is read.
        put(escape_ >= 2 && escape_ <= 5 ? hex_ : 0);
        put(high_surrogate_);  // 0 once its low half is read
        put(utf8_left_);
        if (utf8_left_ > 0) {
            put(utf8_have_);
            put(utf8_lo_);
            put(utf8_hi_);
        }
        if (!text_free) {
            put(piece_.size());
            out.append(piece_);
        }
    } else if (mode_ == Mode::kNumber) {
        put(number_state_);
        put(number_is_float_);
        if (number_.size() < number_shape_below && number_.find_first_of("eE") == std::string::npos) {
            const std::size_t dot = number_.find('.');
            const std::string_view digits = std::string_view(number_).substr(number_[0] == '-' ? 1 : 0);
            out.push_back('s');
            out.push_back(number_[0] == '-' ? '-' : '+');
            out.push_back(digits.starts_with('0') ? '0' : digits.empty() ? '_' : '1');
            out.push_back(dot == std::string::npos                                       ? 'i'
                          : number_.find_first_of("123456789", dot) != std::string::npos ? 'f'
                                                                                         : '.');
        } else {
            put(number_digits_);
            put(number_.size());
            out.append(number_);
        }
    } else if (mode_ == Mode::kLiteral) {
        put(literal_.size());
        out.append(literal_.substr(0, 1));
        put(literal_at_);
    }
}

bool JsonStream::may_follow(unsigned char c) const {
    if (state_ == StreamState::kInvalid) return false;
    const char ch = static_cast<char>(c);
    const bool space = is_space(ch);
    const auto value_start = [&] {
        return ch == '{' || ch == '[' || ch == '"' || ch == '-' || is_digit(ch) || ch == 't' || ch == 'f' || ch == 'n';
    };
    switch (mode_) {
        case Mode::kStart:
            return bom_seen_ > 0 || c == 0xef || space || value_start();
        case Mode::kValue:
            return space || value_start();
        case Mode::kArrayValueOrEnd:
            return space || ch == ']' || value_start();
        case Mode::kObjectKeyOrEnd:
            return space || ch == '"' || ch == '}';
        case Mode::kObjectKey:
            return space || ch == '"';
        case Mode::kColon:
            return space || ch == ':';
        case Mode::kAfterValue:
            return space || ch == ',' || ch == '}' || ch == ']';
        case Mode::kNumber:
            return space || is_digit(ch) || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-' ||
                   ch == ',' || ch == '}' || ch == ']';
        case Mode::kLiteral:
            return literal_at_ < literal_.size() && ch == literal_[literal_at_];
        case Mode::kDone:
            return space;
        case Mode::kString:
            if (utf8_left_ > 0) return c >= utf8_lo_ && c <= utf8_hi_;
            if (escape_ == 1) return std::strchr("\"\\/bfnrtu", ch) != nullptr && c != 0;
            if (escape_ >= 2 && escape_ <= 5) return hex_value(c) >= 0;
            if (escape_ == 6) return ch == '\\';
            if (escape_ == 7) return ch == 'u';
            return c >= 0x20;
    }
    return true;
}

// One byte (a run of plain bytes inside a string); advances `p` and offset_ past what it consumed.
bool JsonStream::step(const char*& p, const char* end) {
    if (mode_ == Mode::kString) return string_bytes(p, end);
    const char c = *p;
    switch (mode_) {
        case Mode::kStart: {
            static constexpr unsigned char kBom[] = {0xef, 0xbb, 0xbf};
            if (static_cast<unsigned char>(c) == kBom[bom_seen_]) {
                if (++bom_seen_ == 3) mode_ = Mode::kValue;
                break;
            }
            if (bom_seen_ > 0) return fail(ParseErrorKind::kEncoding, "Invalid UTF-8");
            mode_ = Mode::kValue;
            return true;  // the same byte, as a value's
        }
        case Mode::kValue:
        case Mode::kArrayValueOrEnd:
            if (is_space(c)) break;
            if (c == ']' && mode_ == Mode::kArrayValueOrEnd) {
                if (!close('[')) return false;
                break;
            }
            if (!value_start(c)) return false;
            break;
        case Mode::kObjectKeyOrEnd:
        case Mode::kObjectKey:
            if (is_space(c)) break;
            if (c == '}' && mode_ == Mode::kObjectKeyOrEnd) {
                if (!close('{')) return false;
                break;
            }
            if (c != '"') return fail(ParseErrorKind::kSyntax, "Expecting property name enclosed in double quotes");
            if (++count_.back() > options_.max_members)
                return fail(ParseErrorKind::kLimit, "More than " + std::to_string(options_.max_members) + " members");
            in_key_ = true;
            string_start_ = offset_;
            string_bytes_ = 0;
            mode_ = Mode::kString;
            break;
        case Mode::kColon:
            if (is_space(c)) break;
            if (c != ':') return fail(ParseErrorKind::kSyntax, "Expecting ':' delimiter");
            mode_ = Mode::kValue;
            break;
        case Mode::kAfterValue:
            if (is_space(c)) break;
            if (c == ',') {
                mode_ = stack_.back() == '{' ? Mode::kObjectKey : Mode::kValue;
                if (events_ != nullptr && !emit(stack_.back() == '{' ? events_->next_member() : events_->next_item()))
                    return false;
                break;
            }
            if ((c == '}' && stack_.back() == '{') || (c == ']' && stack_.back() == '[')) {
                if (!close(stack_.back())) return false;
                break;
            }
            return fail(ParseErrorKind::kSyntax, "Expecting ',' delimiter");
        case Mode::kNumber: {
            bool consumed = false;
            if (!number_byte(c, consumed)) return false;
            if (!consumed) return true;  // the number ended before this byte: read it in the new mode
            break;
        }
        case Mode::kLiteral:
            if (!literal_byte(c)) return false;
            break;
        case Mode::kDone:
            if (!is_space(c)) return fail(ParseErrorKind::kSyntax, "Extra data");
            break;
        case Mode::kString:
            break;  // handled above
    }
    ++p;
    ++offset_;
    return true;
}

bool JsonStream::value_start(char c) {
    if (!stack_.empty() && stack_.back() == '[' && ++count_.back() > options_.max_members)
        return fail(ParseErrorKind::kLimit, "More than " + std::to_string(options_.max_members) + " members");
    switch (c) {
        case '{':
        case '[':
            return open(c);
        case '"':
            in_key_ = false;
            string_start_ = offset_;
            string_bytes_ = 0;
            mode_ = Mode::kString;
            return events_ == nullptr || emit(events_->string({}, false));  // the quote proves a string
        case 't':
            literal_ = "true";
            break;
        case 'f':
            literal_ = "false";
            break;
        case 'n':
            literal_ = "null";
            break;
        default:
            if (c != '-' && !is_digit(c)) return fail(ParseErrorKind::kSyntax, "Expecting value");
            if (events_ != nullptr && !emit(events_->begin_number())) return false;
            number_.assign(1, c);
            number_state_ = c == '-' ? kMinus : c == '0' ? kZero : kInteger;
            number_is_float_ = false;
            number_digits_ = c == '-' ? 0 : 1;
            mode_ = Mode::kNumber;
            return true;
    }
    if (events_ != nullptr && !emit(events_->begin_literal(c == 'n'))) return false;
    literal_at_ = 1;
    mode_ = Mode::kLiteral;
    return true;
}

// Inside a string: escapes and UTF-8 sequences byte by byte, plain runs at once.
bool JsonStream::string_bytes(const char*& p, const char* end) {
    while (p < end) {
        const auto c = static_cast<unsigned char>(*p);
        if (escape_ != 0) {
            if (!escape_byte(c)) return false;
        } else if (utf8_left_ > 0) {
            if (!utf8_byte(c)) return false;
        } else if (c == '"') {
            if (!flush_string(true)) return false;  // a refusal is proven by this quote
            ++p;
            ++offset_;
            if (in_key_) {
                mode_ = Mode::kColon;
                return true;
            }
            return after_value();
        } else if (c == '\\') {
            if (!begin_char()) return false;
            escape_ = 1;
            if (!char_range(0, 0x10ffff)) return false;
        } else if (c < 0x20) {
            return fail(ParseErrorKind::kSyntax, "Invalid control character at");
        } else if (c < 0x80) {
            const char* run = p;
            while (run < end && static_cast<unsigned char>(*run) >= 0x20 && static_cast<unsigned char>(*run) < 0x80 &&
                   *run != '"' && *run != '\\')
                ++run;
            const auto n = static_cast<std::size_t>(run - p);
            if ((string_bytes_ += n) > options_.max_string_bytes)
                return fail(ParseErrorKind::kLimit, "String too long");
            piece_.append(p, n);
            offset_ += n;
            p = run;
            continue;
        } else {
            // A lead byte (Unicode's well-formed sequences: no overlongs, no surrogates, nothing past U+10FFFF).
            if (c >= 0xc2 && c <= 0xf4 && !begin_char()) return false;
            if (!utf8_lead(c, utf8_left_, utf8_lo_, utf8_hi_)) return fail(ParseErrorKind::kEncoding, "Invalid UTF-8");
            utf8_have_ = 1;
            if (++string_bytes_ > options_.max_string_bytes) return fail(ParseErrorKind::kLimit, "String too long");
            piece_.push_back(static_cast<char>(c));
            if (!utf8_range()) return false;
        }
        ++p;
        ++offset_;
    }
    return true;
}

bool JsonStream::utf8_byte(unsigned char c) {
    if (c < utf8_lo_ || c > utf8_hi_) return fail(ParseErrorKind::kEncoding, "Invalid UTF-8");
    utf8_lo_ = 0x80;
    utf8_hi_ = 0xbf;
    --utf8_left_;
    ++utf8_have_;
    if (++string_bytes_ > options_.max_string_bytes) return fail(ParseErrorKind::kLimit, "String too long");
    piece_.push_back(static_cast<char>(c));
    return utf8_left_ == 0 || utf8_range();
}

// escape_: 1 after '\'; 2..5 reading \uXXXX's hex digits (2 + digits read); 6 a low surrogate's '\' due; 7 its 'u'.
bool JsonStream::escape_byte(unsigned char c) {
    static const std::string kLone = "Lone surrogate in \\uXXXX escape";
    if (escape_ == 1) {
        char out = 0;
        switch (c) {
            case '"':
            case '\\':
            case '/':
                out = static_cast<char>(c);
                break;
            case 'b':
                out = '\b';
                break;
            case 'f':
                out = '\f';
                break;
            case 'n':
                out = '\n';
                break;
            case 'r':
                out = '\r';
                break;
            case 't':
                out = '\t';
                break;
            case 'u':
                escape_ = 2;
                hex_ = 0;
                return escape_range();
            default:
                return fail(ParseErrorKind::kSyntax, "Invalid \\escape");
        }
        escape_ = 0;
        if (++string_bytes_ > options_.max_string_bytes) return fail(ParseErrorKind::kLimit, "String too long");
        piece_.push_back(out);
        return true;
    }
    if (escape_ == 6 || escape_ == 7) {
        if (c != (escape_ == 6 ? '\\' : 'u')) return fail(ParseErrorKind::kSyntax, kLone);
        escape_ = escape_ == 6 ? 7 : 2;
        hex_ = 0;
        return escape_range();
    }
    const int v = hex_value(c);
    if (v < 0) return fail(ParseErrorKind::kSyntax, "Invalid \\uXXXX escape");
    // A surrogate that cannot pair is refused at the digit that proves it: a low half must begin "dc".."df", and
    // one of those without a high half before it is lone.
    const bool low_due = high_surrogate_ != 0;
    if (escape_ == 2 && low_due && v != 0xd) return fail(ParseErrorKind::kSyntax, kLone);
    if (escape_ == 3 && hex_ == 0xd && (v >= 0xc) != low_due) return fail(ParseErrorKind::kSyntax, kLone);
    hex_ = hex_ * 16 + static_cast<std::uint32_t>(v);
    if (escape_ < 5) {
        ++escape_;
        return escape_range();
    }
    escape_ = 0;
    const std::uint32_t unit = hex_;
    if (high_surrogate_ != 0) {
        if (unit < 0xdc00 || unit > 0xdfff) return fail(ParseErrorKind::kSyntax, kLone);
        const std::uint32_t cp = 0x10000 + ((high_surrogate_ - 0xd800) << 10) + (unit - 0xdc00);
        high_surrogate_ = 0;
        return append_code_point(cp);
    }
    if (unit >= 0xd800 && unit <= 0xdbff) {
        high_surrogate_ = unit;
        escape_ = 6;
        return escape_range();
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return fail(ParseErrorKind::kSyntax, kLone);
    return append_code_point(unit);
}

bool JsonStream::append_code_point(std::uint32_t cp) {
    char buf[4];
    std::size_t n = 0;
    if (cp < 0x80) {
        buf[n++] = static_cast<char>(cp);
    } else if (cp < 0x800) {
        buf[n++] = static_cast<char>(0xc0 | (cp >> 6));
        buf[n++] = static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        buf[n++] = static_cast<char>(0xe0 | (cp >> 12));
        buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        buf[n++] = static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        buf[n++] = static_cast<char>(0xf0 | (cp >> 18));
        buf[n++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        buf[n++] = static_cast<char>(0x80 | (cp & 0x3f));
    }
    if ((string_bytes_ += n) > options_.max_string_bytes) return fail(ParseErrorKind::kLimit, "String too long");
    piece_.append(buf, n);
    return true;
}

bool JsonStream::begin_char() {
    return events_ == nullptr || emit(events_->begin_char(in_key_, piece_));
}

bool JsonStream::char_range(std::uint32_t lo, std::uint32_t hi) {
    if (events_ == nullptr) return true;
    // A UTF-8 sequence's bytes so far are in piece_ already: the text before it is what comes before them.
    const std::size_t partial = utf8_left_ > 0 ? utf8_have_ : 0;
    return emit(events_->char_range(in_key_, std::string_view(piece_).substr(0, piece_.size() - partial), lo, hi));
}

// The code points an escape in progress may still give: after 'u' and k hex digits, the units they begin; a high
// surrogate's low half maps into its 1024 supplementary code points; a unit range that may begin a high surrogate
// reaches every supplementary one.
bool JsonStream::escape_range() {
    if (escape_ == 6 || escape_ == 7) {
        const std::uint32_t base = 0x10000 + ((high_surrogate_ - 0xd800) << 10);
        return char_range(base, base + 0x3ff);
    }
    const int digits = escape_ - 2;  // 0..3
    const int free_bits = 4 * (4 - digits);
    std::uint32_t lo = hex_ << free_bits;
    std::uint32_t hi = lo + ((std::uint32_t{1} << free_bits) - 1);
    if (high_surrogate_ != 0) {
        const std::uint32_t base = 0x10000 + ((high_surrogate_ - 0xd800) << 10);
        lo = std::max<std::uint32_t>(lo, 0xdc00);
        hi = std::min<std::uint32_t>(hi, 0xdfff);
        if (lo > hi) return char_range(base, base + 0x3ff);  // refused by the syntax at the next digit anyway
        return char_range(base + (lo - 0xdc00), base + (hi - 0xdc00));
    }
    if (lo <= 0xdfff && hi >= 0xd800) hi = 0x10ffff;
    return char_range(lo, hi);
}

// The code points a UTF-8 sequence in progress may still give: its bytes so far, then the lowest (highest) byte the
// next position takes and the lowest (highest) continuation bytes after it.
bool JsonStream::utf8_range() {
    const std::size_t have = utf8_have_;
    const auto lead = static_cast<unsigned char>(piece_[piece_.size() - have]);
    const int total = static_cast<int>(have) + utf8_left_;
    std::uint32_t prefix = lead & (0xff >> (total + 1));
    for (std::size_t k = 1; k < have; ++k)
        prefix = prefix << 6 | (static_cast<unsigned char>(piece_[piece_.size() - have + k]) & 0x3f);
    std::uint32_t lo = prefix << 6 | (utf8_lo_ & 0x3f);
    std::uint32_t hi = prefix << 6 | (utf8_hi_ & 0x3f);
    for (int k = 1; k < utf8_left_; ++k) {
        lo = lo << 6;
        hi = hi << 6 | 0x3f;
    }
    return char_range(lo, hi);
}

bool JsonStream::flush_string(bool last) {
    // A UTF-8 sequence still missing continuation bytes stays for the next piece.
    const std::size_t hold = last || utf8_left_ == 0 ? 0 : utf8_have_;
    const std::string_view out(piece_.data(), piece_.size() - hold);
    base::Status s;
    if (events_ != nullptr && (!out.empty() || last))
        s = in_key_ ? events_->key(out, last) : events_->string(out, last);
    piece_.erase(0, piece_.size() - hold);
    return emit(s);
}

bool JsonStream::number_byte(char c, bool& consumed) {
    consumed = true;
    const bool digit = is_digit(c);
    switch (number_state_) {
        case kMinus:
            if (!digit) return fail(ParseErrorKind::kSyntax, "Expecting value");
            number_state_ = c == '0' ? kZero : kInteger;
            break;
        case kZero:
        case kInteger:
            if (digit && number_state_ == kInteger) break;
            if (c == '.') {
                number_state_ = kDot;
            } else if (c == 'e' || c == 'E') {
                number_state_ = kExponent;
            } else {
                consumed = false;
            }
            break;
        case kDot:
            if (!digit) return fail(ParseErrorKind::kSyntax, "Expecting value");
            number_state_ = kFraction;
            break;
        case kFraction:
            if (digit) break;
            if (c == 'e' || c == 'E') {
                number_state_ = kExponent;
            } else {
                consumed = false;
            }
            break;
        case kExponent:
            if (c == '+' || c == '-') {
                number_state_ = kExponentSign;
                break;
            }
            [[fallthrough]];
        case kExponentSign:
            if (!digit) return fail(ParseErrorKind::kSyntax, "Expecting value");
            number_state_ = kExponentDigits;
            break;
        default:  // kExponentDigits
            if (!digit) consumed = false;
            break;
    }
    if (!consumed) return end_number();
    // Past the digit limit and 20 digits, no 64-bit integer is left that json::parse would still take.
    if (number_state_ == kInteger && digit && ++number_digits_ > options_.max_integer_digits && number_digits_ > 20)
        return integer_too_long();
    number_is_float_ = number_is_float_ || number_state_ >= kDot;
    // The number's text is held until it ends: bounded like a string (or the integer limit, when longer).
    if (number_.size() >= std::max(options_.max_string_bytes, options_.max_integer_digits + 32))
        return fail(ParseErrorKind::kLimit, "Number too long");
    number_.push_back(c);
    return true;
}

bool JsonStream::end_number() {
    if (!number_can_end(number_state_)) return fail(ParseErrorKind::kSyntax, "Expecting value");
    // A float whose magnitude overflows a double is refused (as json::parse does); one that underflows is 0.
    if (number_is_float_ && std::isinf(std::strtod(number_.c_str(), nullptr)))
        return fail(ParseErrorKind::kSyntax, "Number out of range");
    // The digit limit binds integers beyond 64 bits only (as json::parse's).
    if (!number_is_float_ && number_digits_ > options_.max_integer_digits) {
        const char* first = number_.data();
        const char* last = first + number_.size();
        std::int64_t s = 0;
        std::uint64_t u = 0;
        if (std::from_chars(first, last, s).ec != std::errc() &&
            (*first == '-' || std::from_chars(first, last, u).ec != std::errc()))
            return integer_too_long();
    }
    if (events_ != nullptr && !emit(events_->number(number_))) return false;
    return after_value();
}

bool JsonStream::integer_too_long() {
    return fail(ParseErrorKind::kLimit,
                "Integer longer than " + std::to_string(options_.max_integer_digits) + " digits");
}

bool JsonStream::literal_byte(char c) {
    if (c != literal_[literal_at_]) return fail(ParseErrorKind::kSyntax, "Expecting value");
    if (++literal_at_ < literal_.size()) return true;
    if (events_ != nullptr) {
        base::Status s = literal_[0] == 'n' ? events_->null() : events_->boolean(literal_[0] == 't');
        if (!emit(s)) return false;
    }
    return after_value();
}

bool JsonStream::open(char kind) {
    if (stack_.size() >= options_.max_depth)
        return fail(ParseErrorKind::kLimit, "Nesting deeper than " + std::to_string(options_.max_depth));
    if (events_ != nullptr && !emit(kind == '{' ? events_->begin_object() : events_->begin_array())) return false;
    stack_.push_back(kind);
    count_.push_back(0);
    mode_ = kind == '{' ? Mode::kObjectKeyOrEnd : Mode::kArrayValueOrEnd;
    return true;
}

bool JsonStream::close(char kind) {
    if (events_ != nullptr && !emit(kind == '{' ? events_->end_object() : events_->end_array())) return false;
    stack_.pop_back();
    count_.pop_back();
    return after_value();
}

bool JsonStream::after_value() {
    if (stack_.empty()) {
        mode_ = Mode::kDone;
        state_ = StreamState::kComplete;
    } else {
        mode_ = Mode::kAfterValue;
    }
    return true;
}

bool JsonStream::emit(const base::Status& s) {
    return s.is_ok() || fail(ParseErrorKind::kSyntax, s.message());
}

bool JsonStream::fail(ParseErrorKind kind, std::string message) {
    return fail_at(offset_, kind, std::move(message));
}

bool JsonStream::fail_at(std::size_t offset, ParseErrorKind kind, std::string message) {
    state_ = StreamState::kInvalid;
    error_ = StreamError{offset, kind, std::move(message)};
    return false;
}

}  // namespace slipstream::agent::structured
