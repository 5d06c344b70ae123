// WebSocketTransport: what a WebSocket session needs from the connection that carries it.
#pragma once

#include "server/core/output_queue.h"

namespace slipstream::server {

/// Implemented by what carries the session (UpgradedWebSocket over a whole connection, plain TCP or TLS alike;
/// H2WebSocketStream over an HTTP/2 stream): the session reads nothing itself; the carrier hands it decrypted
/// bytes, and it writes frames into the carrier's output. Loop thread.
class WebSocketTransport {
  public:
    /// Where frames are queued; the connection writes (and encrypts) them.
    virtual OutputQueue& ws_output() = 0;
    /// Flushes the output at the end of this loop iteration.
    virtual void ws_flush_soon() = 0;
    /// Stops reading and closes the connection once the output is written.
    virtual void ws_close_after_output() = 0;
    /// Closes the connection now, dropping unsent output.
    virtual void ws_abort() = 0;

  protected:
    ~WebSocketTransport() = default;
};

}  // namespace slipstream::server
