// Response head serialization: size first, then one memcpy pass into the reserved space.
#include "http/h1/serializer.h"

#include <cstring>

#include "http/h1/reason_phrase.h"

namespace slipstream::http::h1 {
namespace {

constexpr std::string_view kDatePrefix = "Date: ";
constexpr std::string_view kServerPrefix = "Server: ";
constexpr std::string_view kLengthPrefix = "Content-Length: ";
constexpr std::string_view kChunked = "Transfer-Encoding: chunked\r\n";
constexpr std::string_view kClose = "Connection: close\r\n";
constexpr std::string_view kKeepAlive = "Connection: keep-alive\r\n";
constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kStatus200 = "HTTP/1.1 200 OK\r\n";

// The head after the rules of RFC 9110 §6.4.1 / RFC 9112 §6-9 are applied.
struct Plan {
    int status;
    std::string_view reason;
    bool standard_200;  // "200 OK": the status line is one constant
    ResponseFraming framing;
    bool keep_alive;
    std::string_view connection;  // the Connection field to write, or empty
    std::string_view content;     // written behind the head
    char digits[20];              // decimal Content-Length, right-aligned: its last length_size bytes
    std::size_t length_size = 0;

    std::string_view length() const { return {digits + sizeof digits - length_size, length_size}; }
};

Plan make_plan(const ResponseHead& h) {
    Plan p;  // not value-initialised: only the digits in use are written (zeroing all cost ~20 instructions)
    p.status = h.status >= 100 && h.status <= 999 ? h.status : 500;
    p.standard_200 = p.status == 200 && (h.reason.empty() || h.reason == "OK");
    p.reason = p.standard_200 ? std::string_view("OK") : h.reason.empty() ? reason_phrase(p.status) : h.reason;
    p.framing = h.framing;
    p.keep_alive = h.keep_alive;
    const bool informational = p.status < 200;
    if (informational || p.status == 204 || p.status == 304) p.framing = ResponseFraming::kNone;
    const bool http10 = h.request_version == Version::kHttp10;
    if (p.framing == ResponseFraming::kChunked && http10) p.framing = ResponseFraming::kUntilClose;
    if (p.framing == ResponseFraming::kUntilClose) p.keep_alive = false;
    if (!informational) {
        if (http10 && p.keep_alive) p.connection = kKeepAlive;
        if (!http10 && !p.keep_alive) p.connection = kClose;
    }
    if (p.framing == ResponseFraming::kContentLength) {
        char* const end = p.digits + sizeof p.digits;
        char* d = end;
        std::uint64_t v = h.content_length;
        do {
            *--d = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        p.length_size = static_cast<std::size_t>(end - d);
        p.content = h.content;
    }
    return p;
}

std::size_t plan_size(const ResponseHead& h, const Plan& p) {
    std::size_t n = 13 + p.reason.size() + 2;  // "HTTP/1.1 200 " reason CRLF
    if (!h.date.empty()) n += kDatePrefix.size() + h.date.size() + 2;
    if (!h.server.empty()) n += kServerPrefix.size() + h.server.size() + 2;
    for (const Header& f : h.headers)
        n += f.name.size() + 2 + f.value.size() + 2;
    if (p.framing == ResponseFraming::kContentLength) n += kLengthPrefix.size() + p.length_size + 2;
    if (p.framing == ResponseFraming::kChunked) n += kChunked.size();
    return n + p.connection.size() + 2 + p.content.size();
}

// Copies `n` bytes, 4 <= n <= 32, as two possibly overlapping word pairs: no call for the short pieces a
// head is made of (names, values, prefixes).
template <typename Word>
[[gnu::always_inline]] inline void copy_overlapping(char* dst, const char* src, std::size_t n) {
    Word head;
    Word tail;
    std::memcpy(&head, src, sizeof(Word));
    std::memcpy(&tail, src + n - sizeof(Word), sizeof(Word));
    std::memcpy(dst, &head, sizeof(Word));
    std::memcpy(dst + n - sizeof(Word), &tail, sizeof(Word));
}

struct Word16 {
    std::uint64_t lo;
    std::uint64_t hi;
};

// Inlined everywhere: the constant pieces (prefixes, CRLF) then fold to a fixed-size copy.
[[gnu::always_inline]] inline char* put(char* dst, std::string_view s) {
    const std::size_t n = s.size();
    const char* src = s.data();
    if (n > 32) {
        std::memcpy(dst, src, n);
    } else if (n >= 16) {
        copy_overlapping<Word16>(dst, src, n);
    } else if (n >= 8) {
        copy_overlapping<std::uint64_t>(dst, src, n);
    } else if (n >= 4) {
        copy_overlapping<std::uint32_t>(dst, src, n);
    } else {
        for (std::size_t i = 0; i < n; ++i)  // an empty view may hold a null pointer: nothing is read
            dst[i] = src[i];
    }
    return dst + n;
}

[[gnu::always_inline]] inline char* put_field(char* dst, std::string_view prefix, std::string_view value) {
    return put(put(put(dst, prefix), value), kCrlf);
}

void write_plan(const ResponseHead& h, const Plan& p, char* dst) {
    if (p.standard_200) {
        dst = put(dst, kStatus200);  // the common case: one constant copy
    } else {
        char status_line[13] = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' ', 0, 0, 0, ' '};
        status_line[9] = static_cast<char>('0' + p.status / 100);
        status_line[10] = static_cast<char>('0' + p.status / 10 % 10);
        status_line[11] = static_cast<char>('0' + p.status % 10);
        dst = put(dst, {status_line, sizeof status_line});
        dst = put(put(dst, p.reason), kCrlf);
    }
    if (!h.date.empty()) dst = put_field(dst, kDatePrefix, h.date);
    if (!h.server.empty()) dst = put_field(dst, kServerPrefix, h.server);
    for (const Header& f : h.headers)
        dst = put(put(put(put(dst, f.name), ": "), f.value), kCrlf);
    if (p.framing == ResponseFraming::kContentLength) dst = put_field(dst, kLengthPrefix, p.length());
    if (p.framing == ResponseFraming::kChunked) dst = put(dst, kChunked);
    if (!p.connection.empty()) dst = put(dst, p.connection);  // mostly absent: skips put's size tests
    dst = put(dst, kCrlf);
    put(dst, p.content);  // small content is copied inline, without a call
}

}  // namespace

std::size_t response_head_size(const ResponseHead& head) {
    return plan_size(head, make_plan(head));
}

WrittenHead write_response_head(const ResponseHead& head, base::Buffer& out) {
    const Plan plan = make_plan(head);
    const std::size_t size = plan_size(head, plan);
    write_plan(head, plan, out.prepare(size).data());
    out.commit(size);
    return {plan.framing, plan.keep_alive, size, !plan.content.empty()};
}

WrittenHead write_response_head(const ResponseHead& head, std::span<char> out) {
    const Plan plan = make_plan(head);
    const std::size_t size = plan_size(head, plan);
    if (out.size() < size) return {plan.framing, plan.keep_alive, 0};
    write_plan(head, plan, out.data());
    return {plan.framing, plan.keep_alive, size, !plan.content.empty()};
}

WrittenHead write_response_head(const ResponseHead& head, HeadSpaceFn space, void* context) {
    const Plan plan = make_plan(head);
    const std::size_t size = plan_size(head, plan);
    char* dst = space(context, size);
    if (dst == nullptr) return {plan.framing, plan.keep_alive, 0};
    write_plan(head, plan, dst);
    return {plan.framing, plan.keep_alive, size, !plan.content.empty()};
}

std::string_view chunk_header(std::uint64_t size, char (&out)[kMaxChunkHeaderSize]) {
    static constexpr char kHex[] = "0123456789abcdef";
    char digits[16];
    std::size_t n = 0;
    do {
        digits[n++] = kHex[size & 0xf];
        size >>= 4;
    } while (size != 0);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = digits[n - 1 - i];
    out[n] = '\r';
    out[n + 1] = '\n';
    return {out, n + 2};
}

void append_chunk(base::Buffer& out, std::string_view data) {
    if (data.empty()) return;
    char header[kMaxChunkHeaderSize];
    const std::string_view h = chunk_header(data.size(), header);
    char* dst = out.prepare(h.size() + data.size() + kChunkEnd.size()).data();
    dst = put(put(dst, h), data);
    put(dst, kChunkEnd);
    out.commit(h.size() + data.size() + kChunkEnd.size());
}

}  // namespace slipstream::http::h1
