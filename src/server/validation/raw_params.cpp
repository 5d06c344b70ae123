// Starlette-compatible splitting of query strings and Cookie headers into raw (name, value) text.
#include "server/validation/raw_params.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "base/percent_decode.h"

namespace slipstream::server::detail {
namespace {

bool is_ascii(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

// Length of the well-formed UTF-8 sequence at s[i], or 0 (RFC 3629: no overlongs, no surrogates).
std::size_t sequence_length(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned char c = at(0);
    if (c < 0x80) return 1;
    std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
    unsigned char c1 = at(1);
    unsigned char lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (c1 < lo || c1 > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if ((at(k) & 0xC0) != 0x80) return 0;
    return n;
}

// Length of the maximal prefix of an invalid sequence at s[i] (what Python replaces by one U+FFFD).
std::size_t invalid_length(std::string_view s, std::size_t i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 1;
    std::size_t k = 1;
    for (; k < n && i + k < s.size(); ++k) {
        unsigned char b = static_cast<unsigned char>(s[i + k]);
        unsigned char lo = 0x80, hi = 0xBF;
        if (k == 1 && c == 0xE0) lo = 0xA0;
        if (k == 1 && c == 0xED) hi = 0x9F;
        if (k == 1 && c == 0xF0) lo = 0x90;
        if (k == 1 && c == 0xF4) hi = 0x8F;
        if (b < lo || b > hi) break;
    }
    return k;
}

void append_latin1(std::string& out, unsigned char c) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

void append_utf8_replacing(std::string& out, std::string_view bytes) {
    for (std::size_t i = 0; i < bytes.size();) {
        std::size_t n = sequence_length(bytes, i);
        if (n > 0) {
            out.append(bytes.substr(i, n));
            i += n;
        } else {
            out.append("\xEF\xBF\xBD");
            i += invalid_length(bytes, i);
        }
    }
}

// urllib's unquote_plus over one latin-1 decoded piece: '+' is a space, ASCII runs are percent-decoded
// and read as UTF-8 (errors replaced), bytes >= 0x80 are latin-1 characters.
std::string_view unquote_plus(std::string_view raw, base::Arena& arena) {
    if (raw.find_first_of("+%") == std::string_view::npos && is_ascii(raw)) return raw;
    std::string out;
    out.reserve(raw.size() + 8);
    std::string run;
    std::size_t i = 0;
    while (i < raw.size()) {
        if (static_cast<unsigned char>(raw[i]) >= 0x80) {
            append_latin1(out, static_cast<unsigned char>(raw[i++]));
            continue;
        }
        const std::size_t start = i;
        while (i < raw.size() && static_cast<unsigned char>(raw[i]) < 0x80)
            ++i;
        // An escape's hex digits are ASCII, so decoding the run alone decodes every escape in it.
        run.clear();
        base::append_percent_decoded(raw.substr(start, i - start), base::PlusMode::kSpace, run);
        append_utf8_replacing(out, run);
    }
    return arena.copy(out);
}

bool is_py_space(unsigned char c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xA0;
}

std::string_view py_strip(std::string_view s) {
    while (!s.empty() && is_py_space(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && is_py_space(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// http.cookies._unquote: a "..." value loses its quotes; \ooo (octal 000-377) and \<char> are unescaped.
std::string unquote_cookie(std::string_view v) {
    if (v.size() < 2 || v.front() != '"' || v.back() != '"') return std::string(v);
    v = v.substr(1, v.size() - 2);
    std::string out;
    for (std::size_t i = 0; i < v.size();) {
        if (v[i] != '\\' || i + 1 >= v.size()) {
            out.push_back(v[i++]);
            continue;
        }
        if (i + 3 < v.size() && v[i + 1] >= '0' && v[i + 1] <= '3' && v[i + 2] >= '0' && v[i + 2] <= '7' &&
            v[i + 3] >= '0' && v[i + 3] <= '7') {
            out.push_back(static_cast<char>((v[i + 1] - '0') * 64 + (v[i + 2] - '0') * 8 + (v[i + 3] - '0')));
            i += 4;
        } else {
            out.push_back(v[i + 1]);
            i += 2;
        }
    }
    return out;
}

// Bytes as Starlette sees header text (latin-1 characters), as UTF-8.
std::string_view latin1_view(std::string_view bytes, base::Arena& arena) {
    if (is_ascii(bytes)) return bytes;
    std::string out;
    out.reserve(bytes.size() * 2);
    for (char c : bytes)
        append_latin1(out, static_cast<unsigned char>(c));
    return arena.copy(out);
}

}  // namespace

std::span<const RawPair> split_query(std::string_view query, base::Arena& arena) {
    std::size_t pieces = 1;
    for (char c : query)
        pieces += c == '&';
    RawPair* out = arena.make_array<RawPair>(pieces);
    std::size_t n = 0;
    while (!query.empty()) {
        std::size_t amp = query.find('&');
        std::string_view piece = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (piece.empty()) continue;
        std::size_t eq = piece.find('=');
        std::string_view key = piece.substr(0, eq);
        std::string_view value = eq == std::string_view::npos ? std::string_view() : piece.substr(eq + 1);
        out[n++] = RawPair{unquote_plus(key, arena), unquote_plus(value, arena)};
    }
    return {out, n};
}

void split_cookies(std::string_view header, base::Arena& arena, std::vector<RawPair>& out) {
    while (true) {
        std::size_t semi = header.find(';');
        std::string_view chunk = header.substr(0, semi);
        std::size_t eq = chunk.find('=');
        std::string_view key = eq == std::string_view::npos ? std::string_view() : chunk.substr(0, eq);
        std::string_view val = eq == std::string_view::npos ? chunk : chunk.substr(eq + 1);
        key = py_strip(key);
        val = py_strip(val);
        if (!key.empty() || !val.empty()) {
            std::string unquoted = unquote_cookie(val);
            std::string_view value = unquoted == val ? val : arena.copy(unquoted);
            // Octal escapes produce code points 0-255 (latin-1), like every other header character.
            out.push_back(RawPair{latin1_view(key, arena), latin1_view(value, arena)});
        }
        if (semi == std::string_view::npos) break;
        header.remove_prefix(semi + 1);
    }
}

std::string_view to_valid_utf8(std::string_view text, base::Arena& arena) {
    for (std::size_t i = 0; i < text.size();) {
        std::size_t n = sequence_length(text, i);
        if (n == 0) {
            std::string out(text.substr(0, i));
            append_utf8_replacing(out, text.substr(i));
            return arena.copy(out);
        }
        i += n;
    }
    return text;
}

std::string_view header_text(std::string_view bytes, base::Arena& arena) {
    return latin1_view(bytes, arena);
}

}  // namespace slipstream::server::detail
