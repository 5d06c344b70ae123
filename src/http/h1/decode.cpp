// Percent-decoding: one pass, decoding into the caller's buffer only when a '%' (or a query '+') is present.
#include "http/h1/decode.h"

#include <cstring>

namespace slipstream::http::h1 {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

struct Decoded {
    DecodeStatus status;
    std::size_t size;
    bool encoded_slash;
};

// Decodes `in` into `out` (>= in.size() bytes); `plus_is_space` for query components.
Decoded percent_decode(std::string_view in, char* out, bool plus_is_space) {
    std::size_t n = 0;
    bool slash = false;
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '%') {
            if (in.size() - i < 3) return {DecodeStatus::kBadPercent, 0, false};
            const int hi = hex_value(in[i + 1]);
            const int lo = hex_value(in[i + 2]);
            if (hi < 0 || lo < 0) return {DecodeStatus::kBadPercent, 0, false};
            c = static_cast<char>(hi * 16 + lo);
            if (c == '\0') return {DecodeStatus::kNul, 0, false};
            if (c == '/') slash = true;
            i += 2;
        } else if (c == '+' && plus_is_space) {
            c = ' ';
        }
        out[n++] = c;
    }
    return {DecodeStatus::kOk, n, slash};
}

// One key or value: a view of `in` when nothing needs decoding, else decoded into scratch at `*used`.
DecodeStatus component(std::string_view in, std::span<char> scratch, std::size_t* used, std::string_view* out) {
    if (in.find_first_of("%+") == std::string_view::npos) {
        *out = in;
        return DecodeStatus::kOk;
    }
    char* dst = scratch.data() + *used;
    const Decoded d = percent_decode(in, dst, true);
    if (d.status != DecodeStatus::kOk) return d.status;
    *out = {dst, d.size};
    *used += d.size;
    return DecodeStatus::kOk;
}

}  // namespace

PathDecodeResult decode_path(std::string_view raw, std::span<char> out) {
    if (raw.find('%') == std::string_view::npos) return {DecodeStatus::kOk, raw, false};
    if (out.size() < raw.size()) return {DecodeStatus::kNoSpace, {}, false};
    const Decoded d = percent_decode(raw, out.data(), false);
    if (d.status != DecodeStatus::kOk) return {d.status, {}, false};
    return {DecodeStatus::kOk, {out.data(), d.size}, d.encoded_slash};
}

QueryParseResult parse_query(std::string_view query, std::span<char> scratch, std::span<QueryParam> out) {
    if (scratch.size() < query.size() && query.find_first_of("%+") != std::string_view::npos)
        return {DecodeStatus::kNoSpace, 0};
    std::size_t count = 0;
    std::size_t used = 0;
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view piece = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        if (piece.empty()) continue;
        if (count == out.size()) return {DecodeStatus::kTooMany, count};
        const std::size_t eq = piece.find('=');
        QueryParam& param = out[count];
        DecodeStatus st = component(piece.substr(0, eq), scratch, &used, &param.key);
        if (st == DecodeStatus::kOk && eq != std::string_view::npos) {
            st = component(piece.substr(eq + 1), scratch, &used, &param.value);
        } else if (st == DecodeStatus::kOk) {
            param.value = {};
        }
        if (st != DecodeStatus::kOk) return {st, count};
        ++count;
    }
    return {DecodeStatus::kOk, count};
}

}  // namespace slipstream::http::h1
