// Connection and Origin: the client's internals: one connection (plain or TLS; HTTP/1.1, or HTTP/2 through its
// H2Link) and one origin's pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "http/h1/chunked_decoder.h"
#include "http/h1/response_parser.h"
#include "net/io_handler.h"
#include "net/socket_address.h"
#include "net/timer.h"
#include "net/tls/tls_stream.h"
#include "store/http/client.h"

namespace slipstream::store::http {

/// The connections and waiting calls of one origin (scheme, host, port). Owned by the Client.
struct Origin {
    std::string key;
    std::string host;
    std::uint16_t port = 0;
    bool tls = false;
    Http2Mode mode = Http2Mode::kAuto;
    /// What the origin's connections speak: unknown until the first TLS handshake (ALPN) of an auto origin.
    enum class Protocol : std::uint8_t { kUnknown, kHttp1, kHttp2 } learned = Protocol::kUnknown;
    Connection* h2 = nullptr;  // the HTTP/2 connection taking new streams, if any
    bool numeric = false;      // an IP literal or "localhost": no resolving
    std::vector<net::SocketAddress> addresses;
    base::MonoNanos resolved_at = 0;
    bool resolving = false;
    std::uint64_t generation = 0;                    // of the resolution in flight
    std::vector<std::unique_ptr<Connection>> conns;  // every open connection, in any state
    std::vector<Connection*> idle;                   // kept alive, unused; the most recent last
    std::size_t connecting = 0;                      // attempts not yet ready
    std::deque<std::shared_ptr<Call>> waiting;
};

/// One connection. Loop thread only. Its life: resolving (the origin's addresses) -> connecting (each address in
/// turn) -> handshake (TLS) -> idle (in the pool) <-> active (one call) -> closed (then buried by the client); or,
/// when HTTP/2 was chosen, handshake -> multiplexed (any number of calls, each a stream of its H2Link) -> closed.
class Connection final : private net::IoHandler {
  public:
    enum class State : std::uint8_t { kResolving, kConnecting, kHandshake, kIdle, kActive, kMultiplexed, kClosed };

    Connection(Client& client, Origin& origin);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    State state() const { return state_; }
    Origin& origin() const { return origin_; }
    /// kResolving: the addresses are known now (or resolving failed: `status`).
    void addresses_ready(base::Status status);
    /// Starts `call` on this idle connection (or as a new stream of a multiplexed one): writes its request, reads
    /// its response.
    void assign(std::shared_ptr<Call> call);
    /// HTTP/2: the connection is usable (no GOAWAY, not failed), and has a stream free now.
    bool multiplexed() const { return h2_ != nullptr; }
    bool h2_usable() const;
    bool h2_can_take() const;
    bool h2_idle() const;
    /// kIdle: nothing arrived on it since it went idle (a server that closed it or sent junk would show).
    bool healthy();
    /// kIdle: wait for the next call until idle_connection_ns.
    void park();
    /// The call's reader paused or resumed.
    void pause_changed(Call* call);
    /// Closes the connection without a word to its call (the caller settles the call). Idempotent.
    void close();
    /// The call ends from the outside (cancel, total timeout): closes the connection (HTTP/1.1) or resets its
    /// stream (HTTP/2) and returns the call, detached (the caller finishes it).
    std::shared_ptr<Call> abort_call(Call* call = nullptr);
    /// The client closes: every call, detached; the connection closed.
    std::vector<std::shared_ptr<Call>> abort_all();
    bool served_before() const { return served_ > 0; }

  private:
    friend class H2Link;

    void on_io(std::uint32_t events) override;
    void connect_next();
    void on_connected();
    void continue_handshake();
    void ready(bool http2);
    // Registers the fd for `events` (or changes them); false when that failed (the caller fails).
    base::Status watch(std::uint32_t events);
    void write_request();
    void read_response();
    // process(), then the end of the stream once every byte before it was handled.
    void pump();
    // Works through the bytes read: head, then body pieces; stops when paused, finished or out of bytes.
    void process();
    void deliver(std::string_view data);
    void complete();
    // The connection failed while connecting (no call yet) or with its call.
    void fail_connect(base::Status status);
    void fail(base::Status status);
    // An idle kept-alive connection ends (the server closed it, or it sat idle too long): counted and dropped.
    void expire_idle();
    void on_timer();
    void set_events();
    void arm(std::int64_t delay_ns, const char* phase);
    base::Result<std::size_t> raw_read(std::span<char> buf);
    base::Result<std::size_t> raw_write(std::string_view data);

    Client& client_;
    Origin& origin_;
    State state_ = State::kResolving;
    int fd_ = -1;
    bool registered_ = false;
    std::size_t next_address_ = 0;
    base::Status last_connect_error_;
    std::unique_ptr<net::tls::TlsStream> tls_;
    bool handshake_wants_write_ = false;
    net::Timer timer_;
    const char* timer_phase_ = "";
    std::int64_t timer_ns_ = 0;
    std::uint64_t served_ = 0;
    std::unique_ptr<H2Link> h2_;  // set once HTTP/2 was chosen

    // The call being served.
    std::shared_ptr<Call> call_;
    std::size_t out_pos_ = 0;  // bytes of call_->wire_ written
    std::string in_;           // bytes read and not yet consumed from in_pos_
    std::size_t in_pos_ = 0;
    enum class Phase : std::uint8_t { kHead, kBody, kDone } phase_ = Phase::kHead;
    h1::ResponseBody body_kind_ = h1::ResponseBody::kNone;
    std::uint64_t remaining_ = 0;  // kContentLength
    std::uint64_t body_bytes_ = 0;
    bool keep_alive_ = false;
    bool eof_ = false;
    h1::ChunkedDecoder chunked_;
    std::vector<h1::Header> fields_;  // the parser's field array, made once
};

}  // namespace slipstream::store::http
