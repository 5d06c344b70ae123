// parse_response: status line, field lines and response framing, with the limits of ResponseLimits.
#include "http/h1/response_parser.h"

#include <algorithm>

#include "http/h1/char_class.h"

namespace slipstream::http::h1 {
namespace {

namespace E = response_errors;
using detail::has_class;
using detail::kFieldChar;
using detail::kTchar;

constexpr std::string_view kHttpPrefix = "HTTP/1.";

// One comma-separated list element after another, OWS trimmed; empty elements skipped (RFC 9110 §5.6.1).
template <typename Fn>
bool for_each_element(std::string_view value, Fn fn) {
    while (!value.empty()) {
        std::size_t comma = value.find(',');
        std::string_view item = value.substr(0, comma);
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
            item.remove_suffix(1);
        if (item.empty()) continue;
        if (!fn(item)) return false;
    }
    return true;
}

bool parse_digits(std::string_view s, std::uint64_t* out) {
    if (s.empty() || s.size() > 19) return false;  // 19 digits always fit in 64 bits
    std::uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    *out = v;
    return true;
}

// The line starting at `pos`: its end (the CR) in *end, or kIncomplete/kError.
enum class Line : std::uint8_t { kOk, kIncomplete, kBadEnding };

Line find_line(std::string_view b, std::size_t pos, std::size_t* end) {
    const char* p = b.data() + pos;
    const char* stop = b.data() + b.size();
    for (; p < stop; ++p) {
        if (*p == '\r' || *p == '\n') break;
    }
    if (p == stop) return Line::kIncomplete;
    if (*p == '\n') return Line::kBadEnding;
    if (p + 1 == stop) return Line::kIncomplete;
    if (p[1] != '\n') return Line::kBadEnding;
    *end = static_cast<std::size_t>(p - b.data());
    return Line::kOk;
}

ParseStatus parse_status_line(std::string_view line, ResponseHead* out) {
    // HTTP/1.x SP 3DIGIT [SP reason]
    if (line.size() < 12 || line.substr(0, kHttpPrefix.size()) != kHttpPrefix) {
        if (line.size() >= 5 && line.substr(0, 5) == "HTTP/") return ParseStatus::failure(E::kBadVersion);
        return ParseStatus::failure(E::kBadStatusLine);
    }
    char minor = line[7];
    if (minor < '0' || minor > '9') return ParseStatus::failure(E::kBadVersion);
    out->version_minor = minor == '0' ? 0 : 1;
    if (line[8] != ' ') return ParseStatus::failure(E::kBadStatusLine);
    int status = 0;
    for (int i = 9; i < 12; ++i) {
        char c = line[static_cast<std::size_t>(i)];
        if (c < '0' || c > '9') return ParseStatus::failure(E::kBadStatus);
        status = status * 10 + (c - '0');
    }
    if (status < 100 || status > 599) return ParseStatus::failure(E::kBadStatus);
    out->status = status;
    std::string_view rest = line.substr(12);
    if (!rest.empty()) {
        if (rest[0] != ' ') return ParseStatus::failure(E::kBadStatus);  // a fourth digit, or junk
        rest.remove_prefix(1);
        for (char c : rest) {
            if (!has_class(c, kFieldChar)) return ParseStatus::failure(E::kBadStatusLine);
        }
    }
    out->reason = rest;
    return ParseStatus::complete(0);
}

// The status line so far is a prefix of a valid one (early refusal of what is not HTTP at all).
bool plausible_prefix(std::string_view partial) {
    std::size_t n = std::min(partial.size(), kHttpPrefix.size());
    return partial.substr(0, n) == kHttpPrefix.substr(0, n);
}

}  // namespace

ParseStatus parse_response(std::string_view bytes, const ResponseLimits& limits, const ResponseContext& context,
                           ResponseHead* out, Header* headers, std::size_t max_headers) {
    *out = ResponseHead{};
    const std::size_t limit = limits.max_head_bytes;
    std::string_view b = bytes.substr(0, std::min(bytes.size(), limit));
    auto too_large_or_incomplete = [&]() {
        return bytes.size() >= limit ? ParseStatus::failure(E::kHeadTooLarge) : ParseStatus::incomplete();
    };

    std::size_t end = 0;
    switch (find_line(b, 0, &end)) {
        case Line::kIncomplete:
            if (!plausible_prefix(b)) return ParseStatus::failure(E::kBadStatusLine);
            return too_large_or_incomplete();
        case Line::kBadEnding:
            return ParseStatus::failure(plausible_prefix(b) ? E::kBadLineEnding : E::kBadStatusLine);
        case Line::kOk:
            break;
    }
    ParseStatus st = parse_status_line(b.substr(0, end), out);
    if (st.is_error()) return st;

    const std::size_t max_count = std::min(max_headers, limits.max_header_count);
    std::size_t count = 0;
    std::size_t pos = end + 2;
    bool have_length = false;
    bool chunked = false;
    bool has_te = false;
    bool close = false;
    bool keep_alive_token = false;
    std::uint64_t length = 0;
    for (;;) {
        switch (find_line(b, pos, &end)) {
            case Line::kIncomplete:
                return too_large_or_incomplete();
            case Line::kBadEnding:
                return ParseStatus::failure(E::kBadLineEnding);
            case Line::kOk:
                break;
        }
        std::string_view line = b.substr(pos, end - pos);
        pos = end + 2;
        if (line.empty()) break;
        if (line[0] == ' ' || line[0] == '\t') return ParseStatus::failure(E::kObsFold);
        std::size_t colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0) return ParseStatus::failure(E::kBadHeaderName);
        std::string_view name = line.substr(0, colon);
        for (std::size_t i = 0; i < name.size(); ++i) {
            if (has_class(name[i], kTchar)) continue;
            bool trailing_ws = true;
            for (std::size_t j = i; j < name.size(); ++j)
                trailing_ws = trailing_ws && (name[j] == ' ' || name[j] == '\t');
            return ParseStatus::failure(trailing_ws ? E::kSpaceBeforeColon : E::kBadHeaderName);
        }
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
            value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
            value.remove_suffix(1);
        for (char c : value) {
            if (!has_class(c, kFieldChar)) return ParseStatus::failure(E::kBadHeaderValue);
        }
        if (count == max_count) return ParseStatus::failure(E::kTooManyHeaders);
        headers[count++] = Header{name, value};

        if (iequals(name, "content-length")) {
            bool ok = for_each_element(value, [&](std::string_view item) {
                std::uint64_t v = 0;
                if (!parse_digits(item, &v)) return false;
                if (have_length && v != length) return false;
                have_length = true;
                length = v;
                return true;
            });
            if (!ok || value.empty()) return ParseStatus::failure(E::kBadContentLength);
        } else if (iequals(name, "transfer-encoding")) {
            has_te = true;
            bool ok = for_each_element(value, [&](std::string_view item) {
                if (chunked) return false;  // a coding after chunked
                if (iequals(item, "chunked")) chunked = true;
                return true;
            });
            if (!ok) return ParseStatus::failure(E::kBadTransferEncoding);
        } else if (iequals(name, "connection")) {
            for_each_element(value, [&](std::string_view item) {
                if (iequals(item, "close")) close = true;
                if (iequals(item, "keep-alive")) keep_alive_token = true;
                return true;
            });
        }
    }
    out->headers = std::span<const Header>(headers, count);
    if (has_te && (!chunked || out->version_minor == 0)) return ParseStatus::failure(E::kBadTransferEncoding);
    if (has_te && have_length) return ParseStatus::failure(E::kLengthAndChunked);
    out->keep_alive = !close && (out->version_minor == 1 || keep_alive_token);
    const int s = out->status;
    if (context.head_request || (s >= 100 && s < 200) || s == 204 || s == 304) {
        out->body = ResponseBody::kNone;
    } else if (chunked) {
        out->body = ResponseBody::kChunked;
    } else if (have_length) {
        out->body = ResponseBody::kContentLength;
        out->content_length = length;
    } else {
        out->body = ResponseBody::kUntilClose;
        out->keep_alive = false;
    }
    return ParseStatus::complete(pos);
}

}  // namespace slipstream::http::h1
