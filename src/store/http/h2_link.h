// H2Link: the client's internals: an HTTP/2 connection's calls, each a stream of one http::h2::ClientSession.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "http/h2/client_session.h"
#include "store/http/client.h"

namespace slipstream::store::http {

namespace h2 = ::slipstream::http::h2;

/// The HTTP/2 side of a Connection once ALPN (or prior knowledge) chose h2. Loop thread only. Owned by its
/// Connection, which keeps the socket, TLS and the connect phase; this reads and writes it from then on.
///
/// - Calls are streams: assign() submits one (HEADERS + DATA), the session's callbacks drive the call's callbacks.
/// - Back-pressure per stream: data for a paused call is held (at most the stream window: bytes are returned to
///   the session with consume() only once delivered, so the server gets no WINDOW_UPDATE for a paused stream).
/// - Timeouts per call (first byte, idle) on Call::io_timer_; cancel and the total timeout reset the stream
///   (RST_STREAM CANCEL) and leave the connection to the other calls.
/// - Retries: streams the server never processed (REFUSED_STREAM, above GOAWAY's last id) are sent again whatever
///   their method; other failures before a response byte only for idempotent calls (Client::maybe_retry).
/// - A connection with no stream closes after ClientOptions::idle_connection_ns (GOAWAY first).
class H2Link final : private h2::ClientSessionHandler {
  public:
    explicit H2Link(Connection& conn);
    ~H2Link();
    H2Link(const H2Link&) = delete;
    H2Link& operator=(const H2Link&) = delete;

    /// Sends the preface and SETTINGS; arms the idle timer.
    void start();
    /// New streams may start here (now or once one ends): not failed, closing, going away or out of ids.
    bool usable() const { return !failed_ && !closing_ && session_.accepting(); }
    bool can_take() const { return !failed_ && !closing_ && session_.can_submit(); }
    std::size_t streams() const { return calls_.size(); }

    void assign(std::shared_ptr<Call> call);
    void on_io(std::uint32_t events);
    void on_idle_timer();
    void pause_changed(Call* call);
    /// Cancel or total timeout: the stream is reset; the call comes back detached (the caller finishes it).
    std::shared_ptr<Call> abort(Call* call);
    /// The client closes: every call, detached; GOAWAY sent best effort, the connection closed.
    std::vector<std::shared_ptr<Call>> take_all();

  private:
    void on_response_head(std::uint32_t id, int status, std::span<const h2::HeaderField> fields) override;
    void on_response_data(std::uint32_t id, std::string_view data) override;
    void on_response_end(std::uint32_t id) override;
    void on_stream_error(std::uint32_t id, const h2::ClientStreamError& error) override;
    void on_goaway(std::uint32_t last_stream, h2::ErrorCode code) override;

    std::shared_ptr<Call> find(std::uint32_t id) const;
    std::shared_ptr<Call> detach(std::uint32_t id);
    void deliver(const std::shared_ptr<Call>& call, std::string_view data);
    void end_call(const std::shared_ptr<Call>& call, base::Status status);
    void fail_call(std::uint32_t id, base::Status status, bool unprocessed);
    void arm(Call& call, std::int64_t ns, const char* phase);
    void on_call_timer(const std::shared_ptr<Call>& call);
    void read();
    void flush();
    void update();  // socket events, the idle timer, and dispatching waiting calls after streams ended
    void fail_connection(base::Status status);
    void finish_close();
    // A failed connection kept for calls whose whole response waits for resume(): dropped once they are done.
    void drop_if_finished();

    Connection& conn_;
    Client& client_;
    Origin& origin_;
    h2::ClientSession session_;
    std::unordered_map<std::uint32_t, std::shared_ptr<Call>> calls_;
    std::string out_;
    std::size_t out_pos_ = 0;
    bool eof_ = false;
    bool failed_ = false;
    bool closing_ = false;    // GOAWAY sent (idle close or the client closing)
    bool freed_ = false;      // a stream ended: waiting calls may take its place
    bool in_update_ = false;  // update() is running (no re-entry)
    base::Status broken_;     // a write failed: the connection fails at the next update()
    std::uint64_t served_ = 0;
};

}  // namespace slipstream::store::http
