// WebSocketChannel: the state a WebSocket handle shares with its session on the owning I/O thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/conn/pending_response.h"
#include "server/core/request_state.h"

namespace slipstream::server {
class WebSocketSession;
struct WebSocketMetrics;
}  // namespace slipstream::server

namespace slipstream::detail {

/// Where the handshake stands: answered at the upgrade (kAccepted), or, with manual accept, pending until
/// the handler accepts (kAccepted) or refuses (kRefused). Moves out of kPending exactly once (a CAS).
enum class Handshake : std::uint8_t { kAccepted, kPending, kRefused };

/// Created on the loop thread at the upgrade. Handles on any thread read the atomics and post to `loop`;
/// `session` is touched only on the loop thread and is null once the connection is gone.
struct WebSocketChannel {
    std::shared_ptr<LoopRef> loop;
    std::thread::id loop_thread;                  // sends from this thread skip the post
    server::WebSocketSession* session = nullptr;  // loop thread only
    server::WebSocketMetrics* metrics = nullptr;
    RequestState request;              // the upgrade request, detached (owns its bytes)
    std::string subprotocol;           // set before the answer is written; read it on the loop thread
    std::vector<std::string> offered;  // the client's Sec-WebSocket-Protocol items; immutable
    std::atomic<Handshake> handshake{Handshake::kAccepted};
    bool compressed = false;
    std::size_t max_queue = 0;
    std::atomic<std::size_t> pending{0};  // bytes posted from other threads and not yet encoded
    std::atomic<std::size_t> output{0};   // the connection's unsent output, refreshed by the loop
    std::atomic<bool> open{true};         // false once a close was sent or received, or the connection dropped
    std::atomic<bool> want_drain{false};  // a send saw backpressure: on_drain runs once the queue is low
    std::shared_ptr<void> user_data;      // the handler's own state; loop thread only
};

}  // namespace slipstream::detail
