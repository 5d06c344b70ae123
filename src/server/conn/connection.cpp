// Connection: the transport side of one client connection: reads, writes, the timer, the TLS handshake, closing.
#include "server/conn/connection.h"

#include <sys/epoll.h>

#include "base/log.h"
#include "net/socket.h"
#include "server/core/transfer_deadline.h"

namespace slipstream::server {

namespace {
constexpr std::uint32_t kLingerMs = 2000;
constexpr std::uint32_t kDrainIdleGraceMs = 100;
constexpr std::size_t kLingerMaxBytes = 16 * 1024 * 1024;
}  // namespace

Connection::Connection(Worker& worker, net::Fd fd, net::SocketAddress peer, std::unique_ptr<net::tls::TlsStream> tls)
    : worker_(worker),
      fd_(std::move(fd)),
      transport_(fd_.get(), std::move(tls)),
      peer_(peer),
      timer_([this] { on_timer(); }),
      session_(worker.sessions().open(*this)) {}

Connection::~Connection() = default;

bool Connection::start() {
    events_ = EPOLLIN | EPOLLRDHUP;
    if (!transport_.register_with(worker_.loop(), events_, this).is_ok()) return false;
    handshaking_ = transport_.tls() != nullptr;
    if (handshaking_) {
        arm(TimerReason::kHandshake, worker_.options().tls_handshake_timeout_ms);
    } else {
        arm(TimerReason::kIdle, worker_.options().keepalive_timeout_ms);
    }
    return true;
}

void Connection::on_io(std::uint32_t events) {
    if (lingering_) {
        linger_read();
        return;
    }
    if (handshaking_) {
        tls_handshake();
        return;
    }
    if (events & EPOLLOUT) {
        flush();
        if (closed_) return;
        session_->after_output();  // output drained: resume reading and serve what waits in in_
        if (closed_) return;
    }
    // A TLS read that had to wait for writability is retried on EPOLLOUT.
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) || transport_.read_wants_write()) on_readable();
}

void Connection::switch_to(std::unique_ptr<ProtocolSession> next) {
    // The replaced session may be the caller: it goes once this loop iteration's events are handled.
    worker_.loop().defer([replaced = std::move(session_)] {});
    session_ = std::move(next);
}

// ---- reading ----

void Connection::on_readable() {
    if (!reading_ || closed_) return;
    // Idle connections own no input memory: a read lands in the worker's scratch unless a partial request waits.
    bool from_scratch = in_.empty();
    std::span<char> space = from_scratch ? worker_.read_scratch() : in_.prepare(16 * 1024);
    base::Result<std::size_t> r = transport_.read(space);
    if (!r.is_ok()) {
        if (!r.status().is_unavailable()) close();
        return;
    }
    if (*r == 0) {
        session_->on_eof();
        return;
    }
    // The one virtual call of a read: ~5 instructions per request (callgrind, bench_app GET /hello, 50 connections:
    // 1,821 -> 1,826 with the protocol behind ProtocolSession).
    if (from_scratch) {
        session_->on_read({space.data(), *r}, true);
    } else {
        in_.commit(*r);
        session_->on_read(in_.view(), false);
    }
}

void Connection::read_later() {
    worker_.loop().defer([this] {
        if (!closed_) on_readable();
    });
}

// ---- writing ----

void Connection::schedule_flush() {
    if (flush_scheduled_ || closed_) return;
    flush_scheduled_ = true;
    worker_.loop().defer([this] {
        flush_scheduled_ = false;
        if (closed_) return;
        flush();
        if (!closed_) session_->after_output();
    });
}

void Connection::flush() {
    if (closed_) return;
    if (!out_.empty()) {
        // A slow client's episode ends only once it has taken everything (the kernel's queue included): output
        // that fits in the socket's buffer must not restart the minimum-rate grace at every write.
        if (write_episode_ && !write_blocked_ && net::unsent_bytes(fd_.get()) == 0) write_episode_ = false;
        base::Result<std::size_t> r = transport_.flush(out_, worker_.write_scratch());
        if (!r.is_ok() && !r.status().is_unavailable()) {
            close();
            return;
        }
        if (write_episode_ && r.is_ok() && *r > 0) {
            write_bytes_ += *r;
            write_progress_at_ = worker_.loop().now();
        }
        bool blocked = !out_.empty();
        if (blocked && !write_episode_) {
            write_episode_ = true;  // the minimum rate counts from here
            write_start_ = write_progress_at_ = worker_.loop().now();
            write_bytes_ = 0;
        }
        if (blocked != write_blocked_) {
            write_blocked_ = blocked;
            std::uint32_t want = (events_ & ~static_cast<std::uint32_t>(EPOLLOUT)) | (blocked ? EPOLLOUT : 0u);
            if (want != events_) {
                events_ = want;
                worker_.loop().modify(fd_.get(), events_).ignore_error();
            }
        }
        if (blocked) {
            refresh_timer(r.is_ok() && *r > 0);
            return;
        }
    }
    if (close_after_write_ && !session_->owes_output()) {
        if (eof_) {
            close();
        } else {
            start_linger();
        }
    }
}

void Connection::set_reading(bool on) {
    if (reading_ == on || closed_) return;
    reading_ = on;
    std::uint32_t want =
        on ? (events_ | EPOLLIN | EPOLLRDHUP) : (events_ & ~static_cast<std::uint32_t>(EPOLLIN | EPOLLRDHUP));
    if (want != events_) {
        events_ = want;
        worker_.loop().modify(fd_.get(), events_).ignore_error();
    }
}

// ---- timers ----

void Connection::arm(TimerReason reason, std::uint32_t ms) {
    arm_at(reason, worker_.loop().now() + std::int64_t{ms} * base::kNanosPerMilli);
}

void Connection::arm_at(TimerReason reason, base::MonoNanos deadline) {
    // Refreshed again within the same loop iteration (the deferred flush, say): nothing to move.
    if (timer_reason_ == reason && timer_.scheduled() && timer_.deadline() == deadline) return;
    timer_reason_ = reason;
    worker_.loop().timers().schedule(timer_, deadline);
}

void Connection::arm_transfer(bool body) {
    const ServerOptions& o = worker_.options();
    TransferDeadline d =
        body
            ? transfer_deadline(worker_.loop().now(), body_.start, body_.bytes, o.body_timeout_ms, o.body_min_rate)
            : transfer_deadline(worker_.loop().now(), write_start_, write_bytes_, o.write_timeout_ms, o.write_min_rate);
    TimerReason reason = body ? (d.by_rate ? TimerReason::kBodyRate : TimerReason::kBody)
                              : (d.by_rate ? TimerReason::kWriteRate : TimerReason::kWrite);
    arm_at(reason, d.at);
}

void Connection::on_timer() {
    static constexpr std::string_view kKinds[] = {"",       "header",        "body",      "idle",      "write",
                                                  "linger", "tls_handshake", "body_rate", "write_rate"};
    if (timer_reason_ != TimerReason::kNone) {
        TimerReason kind = timer_reason_;
        // The rate deadline of a transfer that has not moved for a whole timeout is a plain inactivity timeout
        // (a client that stopped reading, or stopped sending its body, rather than one that trickles).
        const base::MonoNanos now = worker_.loop().now();
        const ServerOptions& o = worker_.options();
        if (kind == TimerReason::kWriteRate && now - write_progress_at_ >= o.write_timeout_ms * base::kNanosPerMilli)
            kind = TimerReason::kWrite;
        if (kind == TimerReason::kBodyRate && now - body_.last >= o.body_timeout_ms * base::kNanosPerMilli)
            kind = TimerReason::kBody;
        worker_.metrics().timeouts.with({kKinds[static_cast<int>(kind)]}).inc();
    }
    switch (timer_reason_) {
        case TimerReason::kHandshake:
        case TimerReason::kWrite:
        case TimerReason::kWriteRate:
        case TimerReason::kLinger:
            close();
            return;
        case TimerReason::kHead:
        case TimerReason::kBody:
        case TimerReason::kBodyRate:
        case TimerReason::kIdle:
            session_->on_timer(timer_reason_);
            return;
        case TimerReason::kNone:
            return;
    }
}

// ---- TLS and HTTP/2 ----

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
        worker_.sessions().start_h2(*this, {});
        if (!closed_) refresh_timer(false);
        // With read ahead the client's first frames may have come with its Finished and sit decrypted-ready
        // in OpenSSL's buffer: the socket will not signal them again.
        if (!closed_ && transport_.has_buffered_input()) on_readable();
        return;
    }
    arm(TimerReason::kIdle, draining_ ? kDrainIdleGraceMs : worker_.options().keepalive_timeout_ms);
    if (transport_.has_buffered_input()) on_readable();  // the client's first request came with its Finished
}

// ---- closing ----

void Connection::begin_drain() {
    draining_ = true;
    if (!closed_) session_->begin_drain();
}

void Connection::start_linger() {
    // Half-close, then read and drop what the client still sends, so our response is not lost to a reset.
    lingering_ = true;
    transport_.shutdown_write().ignore_error();
    events_ = EPOLLIN | EPOLLRDHUP;
    worker_.loop().modify(fd_.get(), events_).ignore_error();
    timer_reason_ = TimerReason::kLinger;
    worker_.loop().schedule_after(timer_, std::int64_t{kLingerMs} * base::kNanosPerMilli);
}

void Connection::linger_read() {
    std::span<char> space = worker_.read_scratch();
    base::Result<std::size_t> r = transport_.read_raw(space);
    if (r.is_ok() && *r > 0) {
        linger_bytes_ += *r;
        if (linger_bytes_ < kLingerMaxBytes) return;
    } else if (!r.is_ok() && r.status().is_unavailable()) {
        return;
    }
    close();
}

void Connection::close() {
    if (closed_) return;
    closed_ = true;
    timer_.cancel();
    transport_.unregister(worker_.loop());  // a stream's output already taken is still sent
    transport_.close_notify();
    fd_.reset();
    session_->on_closed();
    worker_.retire(this);
}

}  // namespace slipstream::server
