// ResponseSink: where an asynchronous handler's answer goes on its loop (an HTTP/1.1 slot, an HTTP/2 stream).
#pragma once

#include <string>

#include "slipstream/response.h"

namespace slipstream::detail {
struct PendingResponse;
}

namespace slipstream::server {

/// Implemented by each protocol that awaits asynchronous answers (H1Session, H2Session; later the ASGI
/// bridge and MCP streams). A PendingResponse reaches its sink only through the SinkLink the sink holds
/// (pending_response.h): once that link is gone, late answers are dropped. Loop thread only.
class ResponseSink {
  public:
    /// A complete answer (send(), or the 500 of a Responder dropped unanswered).
    virtual void deliver_response(slipstream::detail::PendingResponse& pending, Response&& response) = 0;
    /// The head of a streamed answer (start_stream()).
    virtual void deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head) = 0;
    /// A chunk of a streamed answer (write(), an SSE heartbeat).
    virtual void deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk) = 0;
    /// The end of a streamed answer; `aborted`: the producer gave up mid-stream (the answer must not look whole).
    virtual void deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted) = 0;

  protected:
    ~ResponseSink() = default;
};

}  // namespace slipstream::server
