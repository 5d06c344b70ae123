// WebSocketTransport: what a WebSocket session needs from the connection that carries it.
#pragma once

#include "server/core/output_queue.h"

namespace slipstream::server {

/// Implemented by the connection (plain TCP or TLS alike): the session reads nothing itself; the
/// connection hands it decrypted bytes, and it writes frames into the connection's output. Loop thread.
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
