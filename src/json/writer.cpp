// Writer: JSON text in Python json.dumps's compact form, with a table-driven string escaper.
#include "json/writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#include "json/format_double.h"
#include "json/utf8.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace slipstream::json {

namespace {

// For each byte: 0 = copy; 'u' = \u00xx; else the letter of a two-character escape.
constexpr std::array<char, 256> kEscape = [] {
    std::array<char, 256> t{};
    for (int c = 0; c < 0x20; ++c)
        t[c] = 'u';
    t['\b'] = 'b';
    t['\f'] = 'f';
    t['\n'] = 'n';
    t['\r'] = 'r';
    t['\t'] = 't';
    t['"'] = '"';
    t['\\'] = '\\';
    return t;
}();

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, std::uint32_t unit) {
    const char e[6] = {
        '\\', 'u', kHex[(unit >> 12) & 0xF], kHex[(unit >> 8) & 0xF], kHex[(unit >> 4) & 0xF], kHex[unit & 0xF]};
    out.append(e, sizeof e);
}

void append_escape(std::string& out, unsigned char c) {
    const char e = kEscape[c];
    if (e == 'u') {
        append_u_escape(out, c);
    } else {
        const char two[2] = {'\\', e};
        out.append(two, 2);
    }
}

// Index of the first byte of s[from, n) that needs an escape ('"', '\\', or below 0x20), or n. With SSE2, sixteen
// bytes at a time and the exact lane (JSON text escaped as a string has an escape every few bytes); else eight
// bytes at a time: a zero byte in (x ^ '"'), (x ^ '\\') or (x - 0x20...) with the high bit clear marks a candidate.
#if defined(__SSE2__)
// A bit per lane of `v` holding a byte to escape.
inline int escape_lanes(__m128i v) {
    const __m128i below = _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1f)), _mm_setzero_si128());  // <= 0x1f
    const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    const __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), below));
}
#endif

std::size_t find_escape(const char* s, std::size_t from, std::size_t n) {
    std::size_t i = from;
#if defined(__SSE2__)
    for (; i + 16 <= n; i += 16) {
        const int mask = escape_lanes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
        if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
    }
#else
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t x;
        std::memcpy(&x, s + i, 8);
        const std::uint64_t quote = x ^ (kOnes * '"');
        const std::uint64_t slash = x ^ (kOnes * '\\');
        const std::uint64_t hit = ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) | ((x - kOnes * 0x20) & ~x);
        if ((hit & kHigh) != 0) break;
    }
#endif
    for (; i < n; ++i) {
        if (kEscape[static_cast<unsigned char>(s[i])] != 0) return i;
    }
    return n;
}

}  // namespace

void Writer::key(std::string_view name) {
    write_string(name, ':');
    need_comma_ = false;
}

void Writer::string(std::string_view s) {
    write_string(s, '\0');
    need_comma_ = true;
}

void Writer::int64(std::int64_t i) {
    char buf[24];
    char* p = buf;
    if (need_comma_) *p++ = ',';
    out_.append(buf, std::to_chars(p, buf + sizeof buf, i).ptr);
    need_comma_ = true;
}

void Writer::uint64(std::uint64_t u) {
    char buf[24];
    char* p = buf;
    if (need_comma_) *p++ = ',';
    out_.append(buf, std::to_chars(p, buf + sizeof buf, u).ptr);
    need_comma_ = true;
}

base::Status Writer::number(double d) {
    if (!std::isfinite(d)) return base::Status::out_of_range("Out of range float values are not JSON compliant");
    char buf[kMaxDoubleChars + 1];
    char* p = buf;
    if (need_comma_) *p++ = ',';
    out_.append(buf, static_cast<std::size_t>(p - buf) + format_double(d, p));
    need_comma_ = true;
    return base::Status::ok();
}

void Writer::boolean(bool b) {
    const std::string_view text = b ? std::string_view(",true") : std::string_view(",false");
    out_.append(need_comma_ ? text : text.substr(1));
    need_comma_ = true;
}

void Writer::null() {
    out_.append(need_comma_ ? std::string_view(",null") : std::string_view("null"));
    need_comma_ = true;
}

void Writer::raw(std::string_view json) {
    separate();
    out_.append(json);
    need_comma_ = true;
}

// Writes the separator (when due), the quoted string, and `suffix` unless it is '\0'. The common case, nothing
// to escape, is one resize and one copy: ~19 ns per call for a 4-byte string, ~0.23 ns/byte on long
// escape-free text (json_bench BM_WriteString).
void Writer::write_string(std::string_view s, char suffix) {
    if (options_.ensure_ascii) {
        write_string_ascii(s);
        if (suffix != '\0') out_.push_back(suffix);
        return;
    }
    const std::size_t comma = need_comma_ ? 1 : 0;
    std::size_t i = find_escape(s.data(), 0, s.size());
    const std::size_t old = out_.size();
    if (i == s.size()) {
        out_.resize(old + comma + s.size() + 2 + (suffix != '\0'));
        char* o = out_.data() + old;
        if (comma != 0) *o++ = ',';
        *o++ = '"';
        if (!s.empty()) std::memcpy(o, s.data(), s.size());  // an empty Value string may have no data pointer
        o += s.size();
        *o++ = '"';
        if (suffix != '\0') *o = suffix;
        return;
    }
    // Written through a pointer into room for two bytes per byte left (every escape but \u00XX takes two), the
    // closing quote and the suffix; a \u00XX escape makes its four more bytes of room.
    out_.resize(old + comma + 1 + i + 2 * (s.size() - i) + 2);
    char* o = out_.data() + old;
    if (comma != 0) *o++ = ',';
    *o++ = '"';
    std::memcpy(o, s.data(), i);
    o += i;
    // A byte: a backslash written ahead and kept only for an escape, then the byte or its escape letter (no branch
    // but for the rare \u00XX).
    const auto put = [&](std::size_t at) {
        const auto c = static_cast<unsigned char>(s[at]);
        const char e = kEscape[c];
        if (e == 'u') [[unlikely]] {
            const auto written = static_cast<std::size_t>(o - out_.data());
            out_.resize(written);
            append_u_escape(out_, c);
            const std::size_t after = out_.size();
            out_.resize(after + 2 * (s.size() - at - 1) + 2);
            o = out_.data() + after;
            return;
        }
        *o = '\\';
        o += e != 0;
        *o++ = e != 0 ? e : static_cast<char>(c);
    };
    while (i < s.size()) {
#if defined(__SSE2__)
        if (i + 16 <= s.size()) {
            // Sixteen bytes without an escape are stored at once (the room holds them); else byte by byte.
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
            if (escape_lanes(v) == 0) {
                _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
                o += 16;
                i += 16;
                continue;
            }
            for (const std::size_t end = i + 16; i < end; ++i)
                put(i);
            continue;
        }
#endif
        put(i++);
    }
    *o++ = '"';
    if (suffix != '\0') *o++ = suffix;
    out_.resize(static_cast<std::size_t>(o - out_.data()));
}

void Writer::write_string_ascii(std::string_view s) {
    separate();
    out_.push_back('"');
    std::size_t run = 0;
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x7F && kEscape[c] == 0) {
            ++i;
            continue;
        }
        out_.append(s.substr(run, i - run));
        if (c == 0x7F) {
            append_u_escape(out_, c);  // Python's ensure_ascii escapes everything outside ' '..'~'
            ++i;
        } else if (c < 0x80) {
            append_escape(out_, c);
            ++i;
        } else {
            // Decode one sequence; an ill-formed one becomes U+FFFD for its first byte.
            std::size_t len = 1;
            std::uint32_t cp = 0xFFFD;
            if (detail::utf8_sequence_length(s, i) != 0) cp = detail::decode_utf8(s, i, &len);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                append_u_escape(out_, 0xD800 + (cp >> 10));
                append_u_escape(out_, 0xDC00 + (cp & 0x3FF));
            } else {
                append_u_escape(out_, cp);
            }
            i += len;
        }
        run = i;
    }
    out_.append(s.substr(run));
    out_.push_back('"');
}

// ~220 ns for the echo body, ~200 us for the 64 KiB list (json_bench BM_WriteEcho, BM_Write64K).
base::Status Writer::write_value(const Value& value) {
    switch (value.type()) {
        case Type::kNull:
            null();
            break;
        case Type::kBool:
            boolean(value.as_bool());
            break;
        case Type::kInt:
            int64(value.as_int());
            break;
        case Type::kUint:
            uint64(value.as_uint());
            break;
        case Type::kBigInt:
            raw(value.as_decimal());  // exact digits, as json.dumps(int)
            break;
        case Type::kDouble:
            return number(value.as_double());
        case Type::kString:
            string(value.as_string());
            break;
        case Type::kArray:
            begin_array();
            for (const Value& item : value.items())
                SLIPSTREAM_RETURN_IF_ERROR(write_value(item));
            end_array();
            break;
        case Type::kObject:
            begin_object();
            for (const Member& m : value.members()) {
                key(m.key);
                SLIPSTREAM_RETURN_IF_ERROR(write_value(m.value));
            }
            end_object();
            break;
    }
    return base::Status::ok();
}

}  // namespace slipstream::json
