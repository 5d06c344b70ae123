// WebSocket: the C++ API of WebSocket routes: a handle that sends from any thread, and the handler callbacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slipstream/request.h"
#include "slipstream/response.h"

namespace slipstream {

namespace detail {
struct WebSocketChannel;
}

/// What a send did with the message.
enum class SendStatus : std::uint8_t {
    kOk,            // queued for sending
    kBackpressure,  // queued, but more than half the send queue is in use: slow down until on_drain
    kDropped,       // not queued: the send queue is full (ServerOptions::ws_max_send_queue_bytes)
    kClosed,        // not queued: the connection is closing or closed
};

/// A handle to one WebSocket connection. Cheap to copy (a shared pointer); every copy refers to the same
/// connection, and a handle may outlive it (sends then return kClosed). All methods are thread-safe: a
/// send from another thread is handed to the connection's I/O thread, which writes it; messages sent
/// from one thread go out in the order sent.
class WebSocket {
  public:
    WebSocket() = default;
    explicit WebSocket(std::shared_ptr<detail::WebSocketChannel> channel);

    /// Sends a text message (`text` must be UTF-8; not checked). Compressed when permessage-deflate was
    /// negotiated and the message is worth it.
    SendStatus send_text(std::string_view text);
    /// Sends a binary message.
    SendStatus send_binary(std::string_view data);
    /// Sends a ping (payload at most 125 bytes; longer is cut). The pong arrives in on_pong.
    SendStatus ping(std::string_view payload = {});
    /// Starts the close handshake with `code` (1000, 1001, 1003, 1007-1014 or 3000-4999; others send
    /// 1000) and a UTF-8 reason (cut to 123 bytes). on_close runs once the client answers (or the close
    /// times out). Returns false when the connection was already closing.
    bool close(std::uint16_t code = 1000, std::string_view reason = {});

    /// Manual accept only (WebSocketHandler::manual_accept): completes the pending handshake. `subprotocol`
    /// is empty (none) or one of offered_subprotocols(); `headers` are added to the answer (names must be
    /// tokens, values free of CR/LF/NUL; handshake and framing fields are refused). Returns false, and
    /// changes nothing, when the handshake is no longer pending (accepted, refused, the client left) or an
    /// argument is invalid. Any thread; sends made after it returns go out after the answer.
    bool accept(std::string_view subprotocol = {}, std::vector<std::pair<std::string, std::string>> headers = {});
    /// Manual accept only: refuses the pending handshake with an HTTP response (say 403) and closes the
    /// connection after it; on_close then runs with 1006. close() before accept() refuses with 403 and
    /// reports its own code to on_close. Returns false when the handshake is not pending. Any thread.
    bool reject(Response response);
    /// False while a manual-accept handshake is pending (and after it was refused).
    bool is_accepted() const;
    /// The client's Sec-WebSocket-Protocol offers, in its order (empty when it offered none).
    const std::vector<std::string>& offered_subprotocols() const;

    /// True until a close frame was sent or received or the connection dropped.
    bool is_open() const;
    /// Bytes accepted by send_* that are not yet written to the socket.
    std::size_t buffered_amount() const;
    /// The upgrade request (path, path parameters, query, headers, peer). Valid while the handle lives.
    Request request() const;
    /// The subprotocol agreed in the handshake, or empty (read it in the callbacks or after accept()).
    std::string_view subprotocol() const;
    /// True when permessage-deflate was negotiated.
    bool compressed() const;
    /// State the handler keeps with the connection (set it in on_open). Use it on the I/O thread only,
    /// that is inside the callbacks; the handle keeps it alive.
    void set_user_data(std::shared_ptr<void> data);
    std::shared_ptr<void> user_data() const;

    explicit operator bool() const { return channel_ != nullptr; }
    bool operator==(const WebSocket& other) const { return channel_ == other.channel_; }

  private:
    SendStatus send(std::uint8_t opcode, std::string_view payload);

    std::shared_ptr<detail::WebSocketChannel> channel_;
};

/// The callbacks of a WebSocket route. All run on the connection's I/O thread, one at a time, and must
/// not block (hand long work to another thread and send from there). Exceptions they throw are logged
/// and close the connection with 1011. Any callback may be empty.
struct WebSocketHandler {
    /// Before the handshake is answered: return a Response to refuse the upgrade with it (say 401 or
    /// 403); nullopt goes on. The Request is the upgrade request (path parameters included).
    std::function<std::optional<Response>(Request&)> on_upgrade;
    /// The connection is open (the 101 is queued), or, with manual_accept, the handshake is pending and
    /// waits for WebSocket::accept() / reject() / close(). The handle may be kept and used from any thread.
    std::function<void(WebSocket&)> on_open;
    /// A whole message (fragments reassembled, inflated, text validated as UTF-8). `data` is valid only
    /// during the call.
    std::function<void(WebSocket&, std::string_view data, bool is_text)> on_message;
    /// A pong arrived (an answer to ping() or to the server's keep-alive ping).
    std::function<void(WebSocket&, std::string_view payload)> on_pong;
    /// The send queue fell below half its limit after a send returned kBackpressure or kDropped.
    std::function<void(WebSocket&)> on_drain;
    /// The connection ended, exactly once: `code` is the peer's close code (1005 when it sent none),
    /// the code the server closed with, or 1006 when the connection dropped without a close frame.
    std::function<void(WebSocket&, std::uint16_t code, std::string_view reason)> on_close;
    /// Subprotocols this route speaks, in no particular order: the first of the client's offers that is
    /// listed here is chosen. Empty: none is agreed.
    std::vector<std::string> subprotocols;
    /// false (the fast path): the engine answers the handshake before on_open, choosing from
    /// `subprotocols`. true: the answer waits for the handler (FastAPI's `await websocket.accept(
    /// subprotocol=..., headers=...)`): on_open runs first, then accept() sends the 101 (200 on HTTP/2)
    /// with the subprotocol and headers it names, reject() or close() refuse with an HTTP status.
    /// Messages arrive only after accept(); a handshake left pending past ServerOptions::
    /// handler_timeout_ms is refused with 504.
    bool manual_accept = false;
};

}  // namespace slipstream
