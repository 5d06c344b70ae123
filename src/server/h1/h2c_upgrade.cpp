// H1Session's switches to HTTP/2 over cleartext: the connection preface sniffed, and the h2c upgrade (RFC 7540 §3.2).
#include <algorithm>
#include <string_view>

#include "http/h1/header.h"
#include "http/h2/frame.h"
#include "server/conn/worker.h"
#include "server/h1/h1_session.h"
#include "server/h2/h2_session.h"

namespace slipstream::server {

namespace {
// True when the first request line in `data` is complete (after empty lines, RFC 9112 §2.2) and has no "HTTP/" in
// any case: no request line of any HTTP/1.x version, well-formed or not.
bool no_http_version(std::string_view data) {
    std::size_t start = data.find_first_not_of("\r\n");
    if (start == std::string_view::npos) return false;
    std::size_t eol = data.find('\n', start);
    if (eol == std::string_view::npos) return false;  // the line is still arriving
    std::string_view line = data.substr(start, eol - start);
    for (std::size_t slash = line.find('/', 4); slash != std::string_view::npos; slash = line.find('/', slash + 1)) {
        if (http::h1::iequals(line.substr(slash - 4, 5), "HTTP/")) return false;
    }
    return true;
}
}  // namespace

bool H1Session::start_h2c(std::string_view data, bool from_scratch) {
    if (!worker_.options().http2) return false;
    std::size_t n = std::min(data.size(), http::h2::kClientPreface.size());
    if (data.substr(0, n) != http::h2::kClientPreface.substr(0, n)) {
        // Not the preface: the HTTP/1.1 parser's, which answers exactly as with --no-http2 (a leading CRLF is
        // skipped, a malformed version is a 400), unless the first line names no HTTP version at all.
        if (!no_http_version(data)) return false;
        // Then it is no HTTP/1.x request: most likely an HTTP/2 client with a broken preface, which expects the
        // connection to close (RFC 9113 §3.4; h2spec 3.5/2), not an HTTP/1.1 answer.
        conn_.close();
        return true;
    }
    if (data.size() < http::h2::kClientPreface.size()) {
        if (from_scratch) conn_.input().append(data);  // maybe HTTP/2: wait for the rest of the preface
        return true;
    }
    worker_.metrics().h2.connections.with({"prior_knowledge"}).inc();
    upgraded_ = H2Session::start(conn_, data);
    if (!from_scratch) conn_.input().clear();
    return true;
}

namespace {
// True when the comma-separated list `value` holds `token` (case-insensitive).
bool has_token(std::string_view value, std::string_view token) {
    while (!value.empty()) {
        std::size_t comma = value.find(',');
        std::string_view item = value.substr(0, comma);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
            item.remove_suffix(1);
        if (http::h1::iequals(item, token)) return true;
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return false;
}
}  // namespace

// RFC 7540 §3.2: an HTTP/1.1 request with "Upgrade: h2c" and one HTTP2-Settings field is answered 101 and
// served as stream 1. The upgrade is ignored (the request is served over HTTP/1.1) over TLS (ALPN is the way
// there), without exactly one HTTP2-Settings, with a bad HTTP2-Settings value, behind unanswered pipelined
// requests, during a drain, or with a target that is not origin-form. A request body is supported: it has
// fully arrived before dispatch, so it becomes stream 1's body.
bool H1Session::upgrade_h2c(const http::h1::RequestHead& head, std::string_view body) {
    const ServerOptions& o = worker_.options();
    if (!o.http2 || conn_.tls() || conn_.draining() || worker_.draining() || !slots_.empty()) return false;
    if (head.version != http::h1::Version::kHttp11 || head.target_form != http::h1::TargetForm::kOrigin) return false;
    if (!has_token(http::h1::find_header(head.headers, "upgrade"), "h2c")) return false;
    std::string_view settings;
    int count = 0;
    for (const http::h1::Header& h : head.headers) {
        if (!http::h1::iequals(h.name, "http2-settings")) continue;
        settings = h.value;
        ++count;
    }
    if (count != 1) return false;
    auto session = H2Session::create(worker_, conn_);
    if (!session.is_ok()) return false;
    std::unique_ptr<H2Session> h2 = std::move(session).value();
    // The 101 goes into the output before any frame: frames are only pulled by H2Session::pump().
    base::Status st = h2->upgrade(settings, head, body);
    if (!st.is_ok()) return false;
    conn_.output().append(
        std::string_view("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"));
    worker_.metrics().h2.connections.with({"upgrade"}).inc();
    conn_.stop_timer();
    H2Session& next = *h2;
    conn_.switch_to(std::move(h2));
    upgraded_ = &next;
    next.pump();
    return true;
}

}  // namespace slipstream::server
