// parse_request: request line, then field lines, then framing; one pass over the bytes, no allocation.
#include "http/h1/parser.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "http/h1/char_class.h"
#include "http/h1/framing.h"
#include "http/h1/simd_scan.h"
#include "http/h1/target.h"

namespace slipstream::http::h1 {
namespace {

using detail::kTargetChar;
using detail::kTchar;
using detail::scan_class;
using detail::scan_class_fast;
using detail::scan_field_value;

// The bytes a request line or header section may occupy: [p, stop). Reaching `stop` means "need more bytes"
// unless the limit ended the window (then the limit's error).
struct Window {
    const char* stop;
    bool limited;
};

Window window(const char* from, const char* end, std::size_t limit) {
    if (static_cast<std::size_t>(end - from) < limit) return {end, false};
    return {from + limit, true};
}

// The stages return nullptr when done, &kNeedMore when the bytes end too early, or the error: a pointer in a
// register instead of a ParseStatus through memory on every return.
constexpr ParseError kNeedMore{0, "need more bytes"};
using Outcome = const ParseError*;

Outcome fail(const ParseError& e) {
    return &e;
}

// Running out of bytes in window `w`: need more, or the limit's error when the limit ended the window.
Outcome more(Window w, const ParseError& limit_error) {
    return w.limited ? &limit_error : &kNeedMore;
}

// Unaligned loads for word compares (memcpy compiles to one load).
template <typename T>
T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template <typename T, std::size_t N>
constexpr T word(const char (&s)[N]) {
    static_assert(N == sizeof(T) + 1);
    std::array<char, sizeof(T)> a{};
    for (std::size_t i = 0; i < sizeof(T); ++i)
        a[i] = s[i];
    return std::bit_cast<T>(a);
}
constexpr auto kCrLf = word<std::uint16_t>("\r\n");
constexpr auto kGetSp = word<std::uint32_t>("GET ");
constexpr auto kHttp11 = word<std::uint64_t>("HTTP/1.1");
constexpr auto kHttp10 = word<std::uint64_t>("HTTP/1.0");
constexpr auto kHostWord = word<std::uint32_t>("host");
constexpr auto kLowerWord = word<std::uint32_t>("    ");  // ORed onto 4 letters: their lowercase

// Space and HTAB are the only bytes at or below 0x20 in a field value the value scan accepted.
bool is_ows_in_value(char c) {
    return static_cast<unsigned char>(c) <= 0x20;
}

// "HTTP/" DIGIT "." DIGIT CRLF at p, any but the two versions in use; advances p past the CRLF.
Outcome parse_other_version(const char*& p, Window w, RequestHead* out) {
    static constexpr char kPattern[] = "HTTP/#.#\r\n";  // '#' is a digit
    for (int i = 0; i < 10; ++i) {
        if (p + i >= w.stop) return more(w, errors::kRequestLineTooLong);
        const char c = p[i];
        const char want = kPattern[i];
        if (i == 5 && detail::is_digit(static_cast<unsigned char>(c)) && c != '1') {
            return &errors::kUnsupportedVersion;  // known as soon as the major digit arrives
        }
        if (want == '#' ? !detail::is_digit(static_cast<unsigned char>(c)) : c != want) {
            if (i == 8 && c == '\n') return &errors::kBadLineEnding;
            if (i == 9) return &errors::kBadLineEnding;
            return &errors::kBadVersion;
        }
    }
    // RFC 9110 §2.5: a higher minor version of a known major is read as the highest we implement.
    out->version = p[7] == '0' ? Version::kHttp10 : Version::kHttp11;
    p += 10;
    return nullptr;
}

// "HTTP/" DIGIT "." DIGIT CRLF at p; advances p past the CRLF.
Outcome parse_version(const char*& p, Window w, RequestHead* out) {
    if (w.stop - p >= 10 && load<std::uint16_t>(p + 8) == kCrLf) {
        const auto version = load<std::uint64_t>(p);  // one compare for each of the two versions in use
        if (version == kHttp11 || version == kHttp10) {
            out->version = version == kHttp11 ? Version::kHttp11 : Version::kHttp10;
            p += 10;
            return nullptr;
        }
    }
    return parse_other_version(p, w, out);
}

// Empty lines (CRLF) before the request line; p is at a CR.
Outcome skip_empty_lines(const char*& p, Window w) {
    while (p < w.stop && *p == '\r') {
        if (p + 1 >= w.stop) return more(w, errors::kRequestLineTooLong);
        if (p[1] != '\n') return &errors::kBadLineEnding;
        p += 2;
    }
    return nullptr;
}

// path and query of an origin-form target [target, end) whose first '?', if any, is at `question`.
void set_path_query(const char* target, const char* question, const char* end, RequestHead* out) {
    const char* path_end = question != nullptr ? question : end;
    out->path = {target, static_cast<std::size_t>(path_end - target)};
    out->query = question != nullptr ? std::string_view(question + 1, static_cast<std::size_t>(end - question - 1))
                                     : std::string_view();
}

// The rest of a request-target that is not a plain origin-form one (an IPv6 literal, another form, or an error),
// p after its path and query, through the SP after it. Splits an origin-form target (then sets `origin_form`);
// the other forms are left to split_target, after the version.
Outcome parse_other_target(const char*& p, Window w, const char* target, const char* question, RequestHead* out,
                           bool& origin_form, bool& has_brackets) {
    if (p < w.stop && (*p == '[' || *p == ']')) {
        // Rare: an IPv6 literal in an absolute-form or authority-form target; split_target checks placement.
        has_brackets = true;
        p = scan_class(p, w.stop, kTargetChar | detail::kHostChar);
    }
    if (p >= w.stop) return more(w, errors::kRequestLineTooLong);
    if (*p != ' ' || p == target) {
        if (p != target && (*p == '\r' || *p == '\n')) return &errors::kBadRequestLine;  // no HTTP/0.9
        return &errors::kBadTarget;
    }
    const char* target_end = p++;
    out->target = {target, static_cast<std::size_t>(target_end - target)};
    origin_form = *target == '/' && !has_brackets && out->method_id != Method::kConnect;
    if (origin_form) {
        out->target_form = TargetForm::kOrigin;
        set_path_query(target, question, target_end, out);
    }
    return nullptr;
}

// method SP request-target SP HTTP-version CRLF, after any empty lines. Advances p past the CRLF.
Outcome parse_request_line(const char*& p, Window w, RequestHead* out) {
    if (p < w.stop && *p == '\r') {
        if (Outcome o = skip_empty_lines(p, w)) return o;
    }
    if (p >= w.stop) return more(w, errors::kRequestLineTooLong);

    const char* method = p;
    if (w.stop - p >= 4 && load<std::uint32_t>(p) == kGetSp) {
        out->method = {method, 3};  // the common case, one 4-byte compare
        out->method_id = Method::kGet;
        p += 4;
    } else {
        p = scan_class(p, w.stop, kTchar);
        if (p >= w.stop) return more(w, errors::kRequestLineTooLong);
        if (*p != ' ' || p == method) return fail(*p == '\n' ? errors::kBadLineEnding : errors::kBadMethod);
        out->method = {method, static_cast<std::size_t>(p - method)};
        out->method_id = detail::classify_method(out->method);
        ++p;
    }

    const char* target = p;
    p = scan_class_fast<detail::TargetFast>(p, w.stop, detail::kPathChar);  // the first '?' splits path and query
    const char* question = nullptr;
    if (p < w.stop && *p == '?') {
        question = p;
        p = scan_class_fast<detail::TargetFast>(p + 1, w.stop, kTargetChar);
    }
    bool origin_form = p < w.stop && *p == ' ' && p != target && *target == '/' && out->method_id != Method::kConnect;
    bool has_brackets = false;
    if (origin_form) {
        // An origin-form target, the common case: split as it was scanned.
        out->target = {target, static_cast<std::size_t>(p - target)};
        out->target_form = TargetForm::kOrigin;
        set_path_query(target, question, p, out);
        ++p;
    } else if (Outcome o = parse_other_target(p, w, target, question, out, origin_form, has_brackets)) {
        return o;
    }
    if (Outcome o = parse_version(p, w, out)) return o;
    return origin_form ? nullptr : detail::split_target(has_brackets, out);
}

// The value of a Host field line after the colon when it is made of the common Host bytes up to its CRLF, the
// usual case: one scan checks it both as a field value and as a Host. Empty for any other shape (then the
// general path checks the field); `end` is at the CR.
struct PlainHost {
    const char* begin = nullptr;
    const char* end = nullptr;
};

PlainHost scan_plain_host(const char* value, const char* stop) {
    if (value < stop && *value == ' ') ++value;
    const char* end = scan_class_fast<detail::HostFast>(value, stop, detail::kHostChar);
    if (stop - end >= 2 && load<std::uint16_t>(end) == kCrLf) return {value, end};
    return {};
}

// Why a field value scan did not end at a CRLF: need more bytes, or the error.
Outcome bad_value_end(const char* p, Window w) {
    if (p >= w.stop) return more(w, errors::kHeadersTooLarge);
    if (*p != '\r') return fail(*p == '\n' ? errors::kBadLineEnding : errors::kBadHeaderValue);
    if (p + 1 >= w.stop) return more(w, errors::kHeadersTooLarge);
    return &errors::kBadLineEnding;
}

// field-line CRLF ... CRLF. Stores the fields in headers[0, max) and notes framing fields in `state`.
Outcome parse_fields(const char*& p, Window w, Header* headers, std::size_t max, std::size_t& count,
                     detail::FieldState& state) {
    const char* const stop = w.stop;
    // Every HTTP/1.1 request has a Host, and most lead with it: a leading "Host:" with a plain value is taken by one
    // compare and one scan. Anything else about it (and every error) is left to the loop.
    if (max != 0 && stop - p >= 5 && (load<std::uint32_t>(p) | kLowerWord) == kHostWord && p[4] == ':') {
        if (const PlainHost host = scan_plain_host(p + 5, stop); host.end != nullptr) {
            Header& h = headers[count++];
            h.name = {p, 4};
            h.value = {host.begin, static_cast<std::size_t>(host.end - host.begin)};
            state.flags |= detail::FieldState::kHasHost;
            state.host = h.value;
            p = host.end + 2;
        }
    }
    for (;;) {
        if (p >= stop) return more(w, errors::kHeadersTooLarge);
        if (static_cast<unsigned char>(*p) <= ' ') {  // one compare for CR, SP and HTAB (other CTLs: bad name)
            if (*p == '\r') {
                if (p + 1 >= stop) return more(w, errors::kHeadersTooLarge);
                if (p[1] != '\n') return &errors::kBadLineEnding;
                p += 2;
                return nullptr;
            }
            // RFC 9112 §5.2 obs-fold, and §2.2 whitespace before the first field: both refused.
            if (*p == ' ' || *p == '\t') return &errors::kObsFold;
        }

        const char* name = p;
        p = scan_class_fast<detail::TokenFast>(p, stop, kTchar);
        if (p >= stop) return more(w, errors::kHeadersTooLarge);
        if (*p != ':' || p == name) {
            if (p != name && (*p == ' ' || *p == '\t')) return &errors::kSpaceBeforeColon;
            return fail(*p == '\n' ? errors::kBadLineEnding : errors::kBadHeaderName);
        }
        const std::string_view name_view(name, static_cast<std::size_t>(p - name));
        const detail::FramingField kind = detail::classify_field(name_view);
        const char* const colon = p;

        if (kind == detail::FramingField::kHost) {
            if (const PlainHost host = scan_plain_host(colon + 1, stop); host.end != nullptr) {
                if (count == max) return &errors::kTooManyHeaders;
                Header& h = headers[count++];
                h.name = name_view;
                h.value = {host.begin, static_cast<std::size_t>(host.end - host.begin)};
                if (Outcome o = detail::note_checked_host(h.value, state)) return o;
                p = host.end + 2;
                continue;
            }
        }

        // OWS around the value is field bytes to the scan, and trimmed once the line is known to be whole.
        p = scan_field_value(colon + 1, stop);
        if (stop - p < 2 || load<std::uint16_t>(p) != kCrLf) return bad_value_end(p, w);
        const char* value = colon + 1;
        const char* value_end = p;
        while (value < value_end && is_ows_in_value(*value))
            ++value;
        while (value_end > value && is_ows_in_value(value_end[-1]))
            --value_end;
        p += 2;

        if (count == max) return &errors::kTooManyHeaders;
        Header& h = headers[count++];
        h.name = name_view;
        h.value = {value, static_cast<std::size_t>(value_end - value)};
        if (kind != detail::FramingField::kNone) {
            if (Outcome o = detail::note_framing_field(kind, h, stop, state)) return o;
        }
    }
}

}  // namespace

// Budget, see parser_bench (Release, g++ 12): ~299, ~1,425 and ~1,587 instructions a call for wrk's 1-field GET,
// a 9-field API GET and an 11-field browser GET (callgrind, parse_request inclusive); 45, 177 and 180 ns of CPU on
// an EPYC 2.4 GHz while its 2 cores were shared (an upper bound).
ParseStatus parse_request(std::string_view bytes, const Limits& limits, RequestHead* out, Header* headers,
                          std::size_t max_headers) {
    const char* const begin = bytes.data();
    const char* const end = begin + bytes.size();
    const char* p = begin;

    const auto status = [](Outcome o) {
        return o == &kNeedMore ? ParseStatus::incomplete() : ParseStatus::failure(*o);
    };
    if (Outcome o = parse_request_line(p, window(begin, end, limits.max_request_line + 2), out)) return status(o);

    detail::FieldState state;
    std::size_t count = 0;
    const std::size_t max = std::min(max_headers, limits.max_header_count);
    if (Outcome o = parse_fields(p, window(p, end, limits.max_header_bytes), headers, max, count, state)) {
        return status(o);
    }
    out->headers = {headers, count};

    if (Outcome o = detail::finish_head(state, limits, out)) return status(o);
    return ParseStatus::complete(static_cast<std::size_t>(p - begin));
}

}  // namespace slipstream::http::h1
