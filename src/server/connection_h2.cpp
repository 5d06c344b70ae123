// The connection's TLS handshake and its HTTP/2 mode (ALPN "h2" or the cleartext preface).
#include <sys/epoll.h>

#include <algorithm>
#include <string_view>

#include "base/log.h"
#include "server/connection.h"
#include "server/worker.h"

namespace slipstream::server {
namespace {
constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr std::uint32_t kDrainIdleGraceMs = 100;
}  // namespace

void Connection::tls_handshake() {
    base::Result<net::tls::TlsStream::Progress> r = transport_.tls()->handshake();
    if (!r.is_ok()) {
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
    if (transport_.tls()->alpn() == "h2" && worker_.options().http2) {
        start_h2({});
        if (!closed_) refresh_timer(false);
        return;
    }
    arm(TimerReason::kIdle, draining_ ? kDrainIdleGraceMs : worker_.options().keepalive_timeout_ms);
    if (transport_.has_buffered_input()) on_readable();  // the client's first request came with its Finished
}

bool Connection::start_h2c(std::string_view data, bool from_scratch) {
    if (!worker_.options().http2) return false;
    std::size_t n = std::min(data.size(), kPreface.size());
    if (data.substr(0, n) != kPreface.substr(0, n)) {
        // A first line without "HTTP/" is no HTTP/1.x request: most likely an HTTP/2 client with a broken
        // preface, which expects the connection to close, not an HTTP/1.1 answer.
        std::size_t eol = data.find('\n');
        if (eol == std::string_view::npos || data.substr(0, eol).find("HTTP/") != std::string_view::npos) return false;
        close();
        return true;
    }
    if (data.size() < kPreface.size()) {
        if (from_scratch) in_.append(data);  // maybe HTTP/2: wait for the rest of the preface
        return true;
    }
    start_h2(data);
    if (!from_scratch) in_.clear();
    return true;
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

void Connection::h2_refresh_timer(bool progressed) {
    const ServerOptions& o = worker_.options();
    if (h2_->busy()) {
        timer_.cancel();  // handler timers run; a stalled reader is caught by the write timer
        timer_reason_ = TimerReason::kNone;
    } else if (h2_->receiving()) {
        if (timer_reason_ != TimerReason::kBody || progressed) arm(TimerReason::kBody, o.body_timeout_ms);
    } else if (timer_reason_ != TimerReason::kIdle || progressed) {
        arm(TimerReason::kIdle, draining_ ? kDrainIdleGraceMs : o.keepalive_timeout_ms);
    }
}

void Connection::h2_on_timer() {
    if (timer_reason_ == TimerReason::kBody) {
        close();  // a request stalled mid-way
        return;
    }
    timer_reason_ = TimerReason::kNone;
    h2_->shutdown();  // idle: GOAWAY(NO_ERROR), then close once it is written
    h2_pump();
}

}  // namespace slipstream::server
