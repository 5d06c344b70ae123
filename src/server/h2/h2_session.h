// H2Session: one HTTP/2 connection's requests: streams into the common request path, answers back as frames.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/result.h"
#include "http/h1/request_head.h"
#include "http/h2/session.h"
#include "net/socket_address.h"
#include "net/timer.h"
#include "server/conn/connection.h"
#include "server/conn/pending_response.h"
#include "server/conn/protocol_session.h"
#include "server/conn/request_pipeline.h"
#include "server/conn/response_sink.h"
#include "server/conn/worker.h"
#include "server/core/handler_count.h"
#include "server/core/output_queue.h"
#include "server/core/problem.h"
#include "server/encode/h2_response.h"
#include "server/ws/h2_websocket_stream.h"
#include "slipstream/response.h"

namespace slipstream::server {

/// Owned by the Connection that carries it (after ALPN "h2" or the cleartext preface). Each complete
/// request goes through the RequestPipeline, as on HTTP/1.1 (request id, path decoding, router,
/// request-body decoding, RouteSpec validation, sync or asynchronous handler, compression, stream heads
/// with SSE heartbeats, metrics, access log); the answer leaves as HTTP/2 frames. An extended CONNECT
/// (RFC 8441) to a WebSocket route becomes a WebSocket on its stream (H2WebSocketStream). As its connection's
/// ProtocolSession (h2_session_io.cpp) it feeds what is read to receive() and pulls frames into the connection's
/// output under its cap; asynchronous answers reach it as the ResponseSink of their streams. Loop thread only.
class H2Session final : public ProtocolSession, public ResponseSink, private http::h2::SessionHandler {
  public:
    /// `connection` owns the session (after switch_to()).
    static base::Result<std::unique_ptr<H2Session>> create(Worker& worker, Connection& connection);
    /// SessionFactory::start_h2: switches `connection` to a new session (ALPN "h2", or the cleartext preface in
    /// `first_bytes`, fed to it). Returns it, or null when it could not be made (then the connection is closed).
    static ProtocolSession* start(Connection& connection, std::string_view first_bytes);
    ~H2Session() override;

    // ProtocolSession (h2_session_io.cpp).
    void on_read(std::string_view data, bool from_scratch) override;
    void on_eof() override;
    void after_output() override;
    void on_timer(TimerReason reason) override;
    void refresh_timer(bool progressed) override;
    /// The server is draining: event streams end cleanly now (END_STREAM after what was queued, producer
    /// cancelled), then GOAWAY; other streams run on (the drain deadline cuts them through on_closed()).
    void begin_drain() override;
    /// The connection closed: asynchronous handlers are told (cancelled) and their answers dropped; started
    /// streams are logged as aborted.
    void on_closed() override { detach_all(); }
    bool idle() const override;
    /// Moves frames into the connection's output and writes them; closes once the session is finished.
    void pump();

    /// Serves an HTTP/1.1 request that asked to upgrade to h2c as stream 1 (its body complete), right after
    /// create(). Error kInvalidArgument: a bad HTTP2-Settings value; nothing was sent or served (the caller
    /// answers over HTTP/1.1 instead).
    base::Status upgrade(std::string_view http2_settings, const http::h1::RequestHead& head, std::string_view body);
    /// Feeds received bytes. An error means the session queued GOAWAY: flush, then close.
    base::Status receive(std::string_view bytes);
    /// Moves queued frames into `out` until it holds `limit` bytes. Returns the bytes moved.
    std::size_t pull(OutputQueue& out, std::size_t limit);
    bool want_write() const { return session_->want_write(); }
    /// The connection is finished (GOAWAY exchanged and no stream left, or a fatal error).
    bool done() const { return session_->done(); }
    /// Requests whose answers are still being produced or sent.
    bool busy() const { return session_->active_streams() > 0; }
    /// A request is still arriving (headers or body).
    bool receiving() const { return session_->receiving(); }
    /// Graceful GOAWAY (idle timeout): streams in progress finish.
    void shutdown() { session_->shutdown(); }
    /// Flow control: each streamed response's backlog becomes its bytes not yet framed (waiting for the
    /// peer's window included) plus `unsent_output`, the connection's unwritten output.
    void update_backlogs(std::size_t unsent_output);

    // ResponseSink: asynchronous answers (loop thread).
    void deliver_response(slipstream::detail::PendingResponse& pending, Response&& response) override;
    void deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head) override;
    void deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk) override;
    void deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted) override;

  private:
    struct AsyncStream {
        http::h2::StreamId id = 0;
        SinkLink pending;
        RequestRecord record;  // views into pending->request
        bool head_only = false;
        bool streaming = false;
        std::size_t response_bytes = 0;
        std::size_t head_bytes = 0;  // of a started stream
        int status = 0;
    };
    using AsyncMap = std::unordered_map<const slipstream::detail::PendingResponse*, AsyncStream>;

    H2Session(Worker& worker, Connection& connection);

    // The connection is closing (or the session is destroyed): every stream is cut.
    void detach_all();
    // Input while request bodies are awaited counts toward the body's minimum rate (h2_session_io.cpp).
    void note_input(std::size_t n);
    // The session needs a write: at the end of this loop iteration.
    void output_ready() { connection_.schedule_flush(); }

    // SessionHandler (h2_dispatch.cpp): the request path.
    void on_request(http::h2::StreamId id, const http::h2::RequestHead& head) override;
    void on_stream_reset(http::h2::StreamId id) override;
    // Tunnels: WebSocket streams (RFC 8441), h2_dispatch.cpp.
    void on_stream_data(http::h2::StreamId id, std::string_view data) override;
    void on_stream_end(http::h2::StreamId id) override;
    void on_stream_closed(http::h2::StreamId id) override;
    // True when `raw_path` is a WebSocket route's: an extended CONNECT to it is routed as its GET.
    bool websocket_route(std::string_view raw_path);
    // An extended CONNECT after routing: logged as CONNECT; false when answered here (a route that is no tunnel).
    bool tunnel_routed(http::h2::StreamId id, const http::h2::RequestHead& head, NextStep next, PipelineRequest& req,
                       const H2Context& ctx);
    // The handshake of an extended CONNECT to a WebSocket route: the 200 (or a refusal), then the session.
    void open_websocket(http::h2::StreamId id, const http::h2::RequestHead& head, PipelineRequest& req,
                        const H2Context& ctx);
    // The request path is RequestPipeline's (request_pipeline.h); this is its HTTP/2 end for async handlers.
    void dispatch_async(http::h2::StreamId id, RequestPipeline& pipeline, PipelineRequest& req);

    /// Sends a complete response; returns (status sent, bytes) for the metrics.
    std::pair<int, std::size_t> answer(http::h2::StreamId id, Response&& response, const H2Context& ctx);
    void answer_and_observe(http::h2::StreamId id, Response&& response, const H2Context& ctx,
                            const RequestRecord& record);
    H2Context context_for(const AsyncStream& a);
    void on_handler_timeout(slipstream::detail::PendingResponse& pending);
    void finish(AsyncMap::iterator it);
    // A started stream that was cut: logged and counted once, as aborted, with the bytes framed for it.
    void observe_cut(const AsyncStream& a);
    // Drain: ends an event stream cleanly and cancels its producer.
    void end_event_stream(slipstream::detail::PendingResponse& pending);
    void set_backlog(const AsyncStream& a);
    // Every write timeout while streams are active: streams stalled on the client's flow-control window are
    // reset (ServerSession::reset_stalled), so a client cannot hold their buffers by never opening its window.
    void on_stall_check();
    void count_events() { worker_.metrics().h2.add(session_->stats(), counted_); }

    Worker& worker_;
    Connection& connection_;
    net::SocketAddress peer_;
    std::unique_ptr<http::h2::ServerSession> session_;
    AsyncMap async_;
    std::unordered_map<http::h2::StreamId, const slipstream::detail::PendingResponse*> by_stream_;
    std::unordered_map<http::h2::StreamId, std::unique_ptr<H2WebSocketStream>> websockets_;
    std::string frames_;              // reused buffer for pull()
    H2Response head_;                 // reused by answer()
    http::h2::SessionStats counted_;  // the session's stats already added to the metrics
    std::size_t unsent_output_ = 0;   // the connection's unwritten output at the last update_backlogs()
    // Handlers still running for streams the client reset: they count toward the stream limit until done.
    std::shared_ptr<HandlerCount> held_ = std::make_shared<HandlerCount>();
    net::Timer stall_timer_;  // on_stall_check(), armed by pull() while streams are active
    bool draining_ = false;
    bool receiving_body_ = false;  // request bodies were awaited at the last input
};

}  // namespace slipstream::server
