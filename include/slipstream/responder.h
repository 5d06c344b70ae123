// Responder: the handle an asynchronous handler answers through, from any thread, exactly once.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "slipstream/response.h"

namespace slipstream {

namespace detail {
struct PendingResponse;
}

/// Move-only. `send()` may be called from any thread, once; the response is written by the
/// connection's own I/O thread, in request order when requests were pipelined. A Responder
/// destroyed without sending answers 500 (so a lost handler never hangs the client). If the
/// client went away first, sending is a no-op.
///
/// For bodies of unknown length, `start_stream()` sends the head at once and `write()` /
/// `end()` send the body with chunked encoding (HTTP/1.1) or close-delimited (HTTP/1.0).
class Responder {
  public:
    explicit Responder(std::shared_ptr<detail::PendingResponse> pending);
    Responder(Responder&&) noexcept;
    Responder& operator=(Responder&&) noexcept;
    Responder(const Responder&) = delete;
    Responder& operator=(const Responder&) = delete;
    ~Responder();

    /// Sends the complete response. Thread-safe. Returns false if already sent or the client left.
    bool send(Response response);

    /// Starts a streamed response: status, headers and content type now, body chunks later.
    bool start_stream(Response head);
    /// Sends one body chunk of a started stream. Returns false when the client left.
    bool write(std::string_view chunk);
    /// Ends a started stream.
    bool end();

    /// True when the client disconnected (the handler may stop producing).
    bool cancelled() const;
    /// Calls `fn` once when the client disconnects or the server cuts the request (shutdown), on the
    /// connection's I/O thread: it must be quick and must not block (set a flag, notify a condition
    /// variable, cancel a task). If that already happened, `fn` runs at once on the calling thread.
    /// Replaces an earlier callback. Thread-safe. A disconnect is noticed at once while a stream is open.
    void on_cancel(std::function<void()> fn);

    /// The state shared with the connection, for the engine's own wrappers (EventStream).
    detail::PendingResponse* pending() const { return pending_.get(); }

  private:
    std::shared_ptr<detail::PendingResponse> pending_;
};

}  // namespace slipstream
