// Connection: one client connection on its I/O thread: the transport, its registration, the timer and the output.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "base/buffer.h"
#include "base/clock.h"
#include "net/fd.h"
#include "net/io_handler.h"
#include "net/socket_address.h"
#include "net/timer.h"
#include "net/tls/tls_stream.h"
#include "server/conn/protocol_session.h"
#include "server/conn/worker.h"
#include "server/core/output_queue.h"
#include "server/core/transport.h"

namespace slipstream::server {

/// A request body being awaited, for the body timer's minimum rate (transfer_deadline.h): written by the session.
struct BodyProgress {
    base::MonoNanos start = 0;  // when the body began to be awaited (its minimum rate counts from here)
    std::uint64_t bytes = 0;    // body bytes read since (HTTP/1.1: chunk framing included)
    base::MonoNanos last = 0;   // the last body byte (for the timeout's kind)
};

/// Lives on one I/O thread from accept to close; owned by its Worker. Keeps the transport (TLS handshake
/// included), the fd's registration, the one timer (handshake, write and linger itself; the rest for its
/// session), the output queue and its flush, the input the session left unconsumed, and the lingering close.
/// What the bytes mean is its ProtocolSession's, made by the server's SessionFactory: HTTP/1.1 from the start
/// (server/h1), which may switch the connection to WebSocket (server/ws) or h2c; HTTP/2 (server/h2) after ALPN
/// "h2" or the preface.
class Connection final : public net::IoHandler {
  public:
    /// `tls`: the connection is encrypted; its handshake runs first (then ALPN may select HTTP/2).
    Connection(Worker& worker, net::Fd fd, net::SocketAddress peer, std::unique_ptr<net::tls::TlsStream> tls = nullptr);
    ~Connection();

    /// Registers with the loop and arms the first-request deadline. Returns false if registration failed.
    bool start();
    void on_io(std::uint32_t events) override;

    /// About once a second (Worker): a TLS connection without reads or writes since the last call frees
    /// OpenSSL's record buffers.
    void release_idle_buffers() {
        if (!handshaking_ && !closed_) transport_.release_idle_buffers();
    }
    /// The server is draining: close at once when idle, else after the requests in progress. Event streams
    /// are ended cleanly now (their producers cancelled); other streams run on until they end.
    void begin_drain();
    /// The drain deadline passed: closes now; streams in progress end without their final chunk (truncated)
    /// and are logged as aborted.
    void abort() { close(); }

    bool idle() const { return session_->idle(); }
    const net::SocketAddress& peer() const { return peer_; }

    // ---- for its ProtocolSession (loop thread) ----

    Worker& worker() const { return worker_; }
    bool tls() const { return transport_.tls() != nullptr; }
    /// Input the session left unconsumed (a partial request); reads go on into it while it holds bytes.
    base::Buffer& input() { return in_; }
    /// Output in order; flush() writes it.
    OutputQueue& output() { return out_; }
    BodyProgress& body_progress() { return body_; }
    bool closed() const { return closed_; }
    /// The server drains (begin_drain() ran).
    bool draining() const { return draining_; }
    /// The client closed its side.
    bool eof() const { return eof_; }
    void set_eof() { eof_ = true; }
    bool reading() const { return reading_; }
    /// Nothing more is read; the connection closes once the output (and what the session owes) is written.
    bool closing() const { return close_after_write_; }
    void set_closing() { close_after_write_ = true; }
    void set_reading(bool on);
    /// Writes the output; closes (or lingers) once it is empty when closing() and the session owes nothing more.
    void flush();
    /// flush() then the session's after_output() at the end of this loop iteration.
    void schedule_flush();
    /// TLS may hold decrypted bytes the socket will not signal again: reads them in this loop iteration.
    void read_buffered_soon() {
        if (!closed_ && transport_.has_buffered_input()) read_later();
    }
    /// Closes now, dropping unsent output: the session's on_closed() runs, the worker retires the connection.
    void close();
    /// The session's replacement (an upgrade). The current session may be the caller: it is destroyed at the end of
    /// this loop iteration.
    void switch_to(std::unique_ptr<ProtocolSession> next);

    TimerReason timer_reason() const { return timer_reason_; }
    void arm(TimerReason reason, std::uint32_t ms);
    void arm_at(TimerReason reason, base::MonoNanos deadline);
    // The body or write timer: inactivity, or the minimum rate once its grace has passed.
    void arm_transfer(bool body);
    void stop_timer() {
        timer_.cancel();
        timer_reason_ = TimerReason::kNone;
    }
    /// True when the timer is the connection's own (lingering, or output waiting for the client: the write timer,
    /// re-armed here when `progressed` or not yet armed); else the session arms it. Inline: one test in the common
    /// case.
    bool refresh_write_timer(bool progressed) {
        if (lingering_) return true;
        if (!write_blocked_) return false;
        const bool armed = timer_reason_ == TimerReason::kWrite || timer_reason_ == TimerReason::kWriteRate;
        if (!armed || progressed) arm_transfer(false);
        return true;
    }
    /// refresh_write_timer(), else the session's refresh_timer().
    void refresh_timer(bool progressed) {
        if (!refresh_write_timer(progressed)) session_->refresh_timer(progressed);
    }

  private:
    void on_readable();
    void read_later();
    void on_timer();
    void tls_handshake();
    void start_linger();
    void linger_read();

    Worker& worker_;
    net::Fd fd_;
    Transport transport_;  // over fd_: plain or TLS
    net::SocketAddress peer_;
    base::Buffer in_;  // input the session has not consumed yet
    OutputQueue out_;
    net::Timer timer_;
    TimerReason timer_reason_ = TimerReason::kNone;
    BodyProgress body_;
    // A write episode: from the first time output had to wait for the client until the client has taken all of
    // it (the kernel's queue included); its bytes must average write_min_rate after the write timeout's grace.
    base::MonoNanos write_start_ = 0;
    std::uint64_t write_bytes_ = 0;          // bytes the socket took since write_start_
    base::MonoNanos write_progress_at_ = 0;  // the last time the socket took bytes (for the timeout's kind)
    bool write_episode_ = false;

    std::uint32_t events_ = 0;
    bool close_after_write_ = false;  // stop reading; close once the output drained
    bool reading_ = true;
    bool write_blocked_ = false;
    bool flush_scheduled_ = false;
    bool draining_ = false;
    bool lingering_ = false;
    bool eof_ = false;
    bool closed_ = false;
    bool handshaking_ = false;  // the TLS handshake has not finished
    std::size_t linger_bytes_ = 0;
    std::unique_ptr<ProtocolSession> session_;  // never null
};

}  // namespace slipstream::server
