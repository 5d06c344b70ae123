// The connection's TLS handshake and its HTTP/2 mode (ALPN "h2" or the cleartext preface).
#include <sys/epoll.h>

#include <algorithm>
#include <string_view>

#include "base/log.h"
#include "http/h1/header.h"
#include "http/h2/frame.h"
#include "server/connection.h"
#include "server/worker.h"

namespace slipstream::server {
namespace {
constexpr std::uint32_t kDrainIdleGraceMs = 100;
}  // namespace

void Connection::tls_handshake() {
    base::Result<net::tls::TlsStream::Progress> r = transport_.tls()->handshake();
    if (!r.is_ok()) {
        worker_.metrics().h2.tls_failures.inc();
        if (base::log_enabled(base::LogLevel::kDebug))
            base::log_message(base::LogLevel::kDebug, "tls: " + peer_.to_string() + ": " + r.status().message());
        close();
        return;
    }
    using Progress = net::tls::TlsStream::Progress;
    std::uint32_t want = EPOLLIN | EPOLLRDHUP | (*r == Progress::kWantWrite ? EPOLLOUT : 0u);
    if (want != events_) {
        events_ = want;
        worker_.loop().modify(fd_.get(), events_).ignore_error();
    }
    if (*r != Progress::kDone) return;
    handshaking_ = false;
    worker_.metrics().h2.tls_handshake(transport_.tls()->version(), transport_.tls()->alpn());
    if (transport_.tls()->alpn() == "h2" && worker_.options().http2) {
        worker_.metrics().h2.connections.with({"alpn"}).inc();
        start_h2({});
        if (!closed_) refresh_timer(false);
        // With read ahead the client's first frames may have come with its Finished and sit decrypted-ready
        // in OpenSSL's buffer: the socket will not signal them again.
        if (!closed_ && transport_.has_buffered_input()) h2_on_readable();
        return;
    }
    arm(TimerReason::kIdle, draining_ ? kDrainIdleGraceMs : worker_.options().keepalive_timeout_ms);
    if (transport_.has_buffered_input()) on_readable();  // the client's first request came with its Finished
}

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

bool Connection::start_h2c(std::string_view data, bool from_scratch) {
    if (!worker_.options().http2) return false;
    std::size_t n = std::min(data.size(), http::h2::kClientPreface.size());
    if (data.substr(0, n) != http::h2::kClientPreface.substr(0, n)) {
        // Not the preface: the HTTP/1.1 parser's, which answers exactly as with --no-http2 (a leading CRLF is
        // skipped, a malformed version is a 400), unless the first line names no HTTP version at all.
        if (!no_http_version(data)) return false;
        // Then it is no HTTP/1.x request: most likely an HTTP/2 client with a broken preface, which expects the
        // connection to close (RFC 9113 §3.4; h2spec 3.5/2), not an HTTP/1.1 answer.
        close();
        return true;
    }
    if (data.size() < http::h2::kClientPreface.size()) {
        if (from_scratch) in_.append(data);  // maybe HTTP/2: wait for the rest of the preface
        return true;
    }
    worker_.metrics().h2.connections.with({"prior_knowledge"}).inc();
    start_h2(data);
    if (!from_scratch) in_.clear();
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
bool Connection::upgrade_h2c(const http::h1::RequestHead& head, std::string_view body) {
    const ServerOptions& o = worker_.options();
    if (!o.http2 || transport_.tls() != nullptr || draining_ || worker_.draining() || !slots_.empty() || ws_ || h2_)
        return false;
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
    auto session = H2Session::create(worker_, *this, peer_, [this] { schedule_flush(); });
    if (!session.is_ok()) return false;
    h2_ = std::move(session).value();
    // The 101 goes into the output before any frame: frames are only pulled by h2_pump().
    base::Status st = h2_->upgrade(settings, head, body);
    if (!st.is_ok()) {
        h2_.reset();
        return false;
    }
    out_.append(std::string_view("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"));
    worker_.metrics().h2.connections.with({"upgrade"}).inc();
    timer_.cancel();
    timer_reason_ = TimerReason::kNone;
    h2_pump();
    return true;
}

std::size_t Connection::h2c_input(std::string_view data) {
    base::Status s = h2_->receive(data);
    if (!s.is_ok()) {
        worker_.metrics().parse_errors.with({s.is_resource_exhausted() ? "http2_flood" : "http2_protocol"}).inc();
        set_reading(false);
    }
    h2_pump();
    return data.size();
}

void Connection::start_h2(std::string_view first_bytes) {
    auto session = H2Session::create(worker_, *this, peer_, [this] { schedule_flush(); });
    if (!session.is_ok()) {
        base::log_message(base::LogLevel::kError, session.status().to_string());
        close();
        return;
    }
    h2_ = std::move(session).value();
    timer_.cancel();
    timer_reason_ = TimerReason::kNone;
    if (!first_bytes.empty()) {
        base::Status s = h2_->receive(first_bytes);
        if (!s.is_ok()) set_reading(false);
    }
    h2_pump();
}

void Connection::h2_on_readable() {
    if (!reading_ || closed_) return;
    std::span<char> space = worker_.read_scratch();
    base::Result<std::size_t> r = transport_.read(space);
    if (!r.is_ok()) {
        if (!r.status().is_unavailable()) close();
        return;
    }
    if (*r == 0) {
        close();  // the client closed: its streams are cancelled
        return;
    }
    base::Status s = h2_->receive({space.data(), *r});
    if (!s.is_ok()) {
        // The session queued GOAWAY; stop reading, send it, close.
        worker_.metrics().parse_errors.with({s.is_resource_exhausted() ? "http2_flood" : "http2_protocol"}).inc();
        if (base::log_enabled(base::LogLevel::kDebug))
            base::log_message(base::LogLevel::kDebug, peer_.to_string() + ": " + s.message());
        set_reading(false);
    }
    h2_note_input(*r);
    h2_pump();
    if (closed_) return;
    refresh_timer(true);
    if (reading_ && transport_.has_buffered_input()) {
        worker_.loop().defer([this] {
            if (!closed_) h2_on_readable();
        });
    }
}

void Connection::h2_pump() {
    if (closed_) return;
    // Frames are pulled while the output is under its cap; a client that does not read stops the pull,
    // and reading with it, until the socket drains (EPOLLOUT -> after_output -> here).
    const std::size_t cap = worker_.options().max_output_buffer;
    for (;;) {
        std::size_t pulled = h2_->pull(out_, cap);
        if (out_.empty()) break;
        flush();
        if (closed_) return;
        if (pulled == 0 || !out_.empty()) break;
    }
    h2_->update_backlogs(out_.size());  // flow control: frames left the session, or the socket took output
    if (h2_->done()) {
        if (!close_after_write_) {
            close_after_write_ = true;
            set_reading(false);
            flush();  // closes (or lingers) once the output is written
        }
        return;
    }
    if (!close_after_write_) set_reading(out_.size() < cap);
}

void Connection::h2_note_input(std::size_t n) {
    // While request bodies are awaited, the connection's input counts toward the body's minimum rate
    // (transfer_deadline.h): a body trickled inside the inactivity timeout cannot hold the connection for ever.
    if (!h2_->receiving()) {
        h2_receiving_ = false;
        return;
    }
    const base::MonoNanos now = worker_.loop().now();
    if (!h2_receiving_) {
        h2_receiving_ = true;
        body_start_ = now;
        body_bytes_ = 0;
    }
    body_bytes_ += n;
    body_progress_at_ = now;
}

void Connection::h2_refresh_timer(bool progressed) {
    const ServerOptions& o = worker_.options();
    if (h2_->busy()) {
        timer_.cancel();  // handler timers run; a stalled reader is caught by the write timer
        timer_reason_ = TimerReason::kNone;
    } else if (h2_->receiving()) {
        if (!h2_receiving_) {  // receiving since bytes that came before this refresh (the h2c upgrade's stream)
            h2_receiving_ = true;
            body_start_ = body_progress_at_ = worker_.loop().now();
            body_bytes_ = 0;
        }
        const bool armed = timer_reason_ == TimerReason::kBody || timer_reason_ == TimerReason::kBodyRate;
        if (!armed || progressed) arm_transfer(true);
    } else if (timer_reason_ != TimerReason::kIdle || progressed) {
        arm(TimerReason::kIdle, draining_ ? kDrainIdleGraceMs : o.keepalive_timeout_ms);
    }
}

void Connection::h2_on_timer() {
    if (timer_reason_ == TimerReason::kBody || timer_reason_ == TimerReason::kBodyRate) {
        close();  // a request body stalled mid-way or fell below its minimum rate
        return;
    }
    timer_reason_ = TimerReason::kNone;
    h2_->shutdown();  // idle: GOAWAY(NO_ERROR), then close once it is written
    h2_pump();
}

}  // namespace slipstream::server
