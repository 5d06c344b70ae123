// Path and query decoding over base/percent_decode, into the caller's buffer only when a '%' (or query '+') is present.
#include "http/h1/decode.h"

#include "base/percent_decode.h"

namespace slipstream::http::h1 {
namespace {

DecodeStatus to_status(base::PercentError error) {
    switch (error) {
        case base::PercentError::kNone:
            return DecodeStatus::kOk;
        case base::PercentError::kBadEscape:
            return DecodeStatus::kBadPercent;
        case base::PercentError::kNul:
            return DecodeStatus::kNul;
    }
    return DecodeStatus::kBadPercent;
}

// One key or value: a view of `in` when nothing needs decoding, else decoded into scratch at `*used`.
DecodeStatus component(std::string_view in, std::span<char> scratch, std::size_t* used, std::string_view* out) {
    if (in.find_first_of("%+") == std::string_view::npos) {
        *out = in;
        return DecodeStatus::kOk;
    }
    char* dst = scratch.data() + *used;
    const base::StrictDecodeResult d = base::percent_decode_strict(in, {dst, in.size()}, base::PlusMode::kSpace);
    if (d.error != base::PercentError::kNone) return to_status(d.error);
    *out = {dst, d.size};
    *used += d.size;
    return DecodeStatus::kOk;
}

}  // namespace

PathDecodeResult detail::decode_escaped_path(std::string_view raw, std::span<char> out) {
    if (out.size() < raw.size()) return {DecodeStatus::kNoSpace, {}, false};
    const base::StrictDecodeResult d = base::percent_decode_strict(raw, out, base::PlusMode::kLiteral);
    if (d.error != base::PercentError::kNone) return {to_status(d.error), {}, false};
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
