// WebSocket routes for Python: a hub that hands connection events to the executor's loop, and the connection handle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "slipstream/websocket.h"

namespace nanobind {
class module_;
}

namespace slipstream::python {

class NativeApp;
struct WsHubCore;

/// What Python sees of one connection (`_native.NativeWebSocket`). Made on the I/O thread at on_open
/// (request data copied then, no GIL), handed to Python through the hub. Python routes use manual accept:
/// the handshake waits for `accept()` (or `close()` -> 403, `reject()`). Sends are thread-safe.
struct PyWebSocket {
    WebSocket ws;
    std::uint64_t id = 0;
    int route = 0;
    std::string path, query, client, subprotocol;
    std::vector<std::pair<std::string, std::string>> headers;
    std::vector<std::pair<std::string, std::string>> path_params;
    std::vector<std::string> offered;  // the client's Sec-WebSocket-Protocol items
    std::shared_ptr<struct WsConnState> state;
};

/// The Python-visible hub (`_native.WebSocketHub`): one per app. I/O threads push events without the GIL
/// and write an eventfd at most once per batch; the executor's loop reads the fd and calls drain().
class WebSocketHub {
  public:
    WebSocketHub();
    int fileno() const;
    const std::shared_ptr<WsHubCore>& core() const { return core_; }

  private:
    std::shared_ptr<WsHubCore> core_;
};

/// Registers a WebSocket route on `app` whose events go to `hub` tagged with `route` (an index the Python
/// side maps to its endpoint). Throws std::invalid_argument after start or for a bad pattern.
void add_websocket_route(NativeApp& app, const std::string& pattern, WebSocketHub& hub, int route);

/// Registers WebSocketHub, NativeWebSocket and add_websocket_route on the extension module.
void register_websocket(nanobind::module_& m);

}  // namespace slipstream::python
