// Connection: one client connection on its I/O thread: TLS handshake, then HTTP/1.1 (or HTTP/2, WebSocket).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "base/buffer.h"
#include "http/h1/chunked_decoder.h"
#include "http/h1/parse_error.h"
#include "http/h1/request_head.h"
#include "net/fd.h"
#include "net/io_handler.h"
#include "net/socket_address.h"
#include "net/timer.h"
#include "net/tls/tls_stream.h"
#include "server/core/output_queue.h"
#include "server/core/transport.h"
#include "server/h1/response_encoder.h"
#include "server/h2_session.h"
#include "server/pending_response.h"
#include "server/websocket_session.h"
#include "server/websocket_transport.h"
#include "server/worker.h"
#include "slipstream/app.h"
#include "slipstream/response.h"

namespace slipstream::server {

class Worker;
class RequestPipeline;
struct PipelineRequest;

/// Lives on one I/O thread from accept to close; owned by its Worker. Requests are parsed straight from
/// the worker's read buffer when they arrive whole (no per-connection input memory); only a partial
/// request is kept in `in_`. Responses of pipelined requests are written in request order: a response
/// that is ready while an earlier one is still pending waits in its slot.
class Connection final : public net::IoHandler, private WebSocketTransport {
  public:
    /// `tls`: the connection is encrypted; its handshake runs first (then ALPN may select HTTP/2).
    Connection(Worker& worker, net::Fd fd, net::SocketAddress peer, std::unique_ptr<net::tls::TlsStream> tls = nullptr);
    ~Connection();

    /// Registers with the loop and arms the first-request deadline. Returns false if registration failed.
    bool start();
    void on_io(std::uint32_t events) override;

    /// About once a second (Worker): a TLS connection without reads or writes since the last call frees
    /// OpenSSL's record buffers.
    void release_idle_buffers() {
        if (!handshaking_ && !closed_) transport_.release_idle_buffers();
    }
    /// The server is draining: close at once when idle, else after the requests in progress. Event streams
    /// are ended cleanly now (their producers cancelled); other streams run on until they end.
    void begin_drain();
    /// The drain deadline passed: closes now; streams in progress end without their final chunk (truncated)
    /// and are logged as aborted.
    void abort();

    // Called on the loop thread with an asynchronous handler's output.
    void deliver_response(slipstream::detail::PendingResponse& pending, Response&& response);
    void deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head);
    void deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk);
    /// `aborted`: the producer gave up mid-stream; the connection closes without a clean end.
    void deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted);

    bool idle() const;
    const net::SocketAddress& peer() const { return peer_; }

  private:
    enum class Phase : std::uint8_t { kHead, kBody, kClosing };
    // kBodyRate / kWriteRate: the body or the waiting output fell below its minimum rate (transfer_deadline.h).
    enum class TimerReason : std::uint8_t {
        kNone,
        kHead,
        kBody,
        kIdle,
        kWrite,
        kLinger,
        kHandshake,
        kBodyRate,
        kWriteRate
    };

    // A response slot for a request whose answer cannot be written yet (or is being streamed).
    struct Slot {
        std::shared_ptr<slipstream::detail::PendingResponse> pending;
        OutputQueue bytes;         // encoded output waiting for earlier slots
        bool complete = false;     // the whole response is in `bytes`
        bool close_after = false;  // the connection closes after this response
        bool head_only = false;
        http::h1::Version version = http::h1::Version::kHttp11;
        bool keep_alive = true;
        std::string_view request_id;  // into pending->request
        RequestRecord record;         // views into pending->request
        std::size_t response_bytes = 0;
        int status = 0;
        bool aborted = false;  // the response was cut (logged with "aborted":true)
    };

    void on_readable();
    void process(std::string_view data, bool from_scratch);
    // Returns bytes consumed from `data`; 0 when more bytes are needed or the connection is closing.
    std::size_t process_one(std::string_view data);
    std::size_t read_chunked_body(std::string_view data);
    std::size_t start_body(std::string_view data, std::size_t head_len);
    void dispatch(const http::h1::RequestHead& head, std::string_view body);
    // The request path is RequestPipeline's (request_pipeline.h); these are its HTTP/1.1 ends.
    void dispatch_async(RequestPipeline& pipeline, PipelineRequest& req, const EncodeContext& ctx);
    // Encodes a complete response in request order and records it.
    void answer_now(Response&& response, const EncodeContext& ctx, const RequestRecord& record);
    // Encodes into `slot` and records the bytes (and the status of its first response).
    void observe_slot(Slot& slot, std::size_t before, int status);
    // The encoding context of `slot`'s answer; during a drain it may turn the slot's keep-alive off.
    EncodeContext slot_context(Slot& slot);
    // Marks a slot's response complete, records it, and writes what can be written.
    void complete_slot(Slot& slot);
    void answer_error(const http::h1::ParseError& error);
    // Queues a finished response: straight to the output when no earlier response is pending. Inline: the
    // common case is one test.
    OutputQueue& output_for_next(bool close_after) {
        if (close_after) close_after_write_ = true;
        return slots_.empty() ? out_ : queue_slot(close_after);
    }
    // A complete slot behind the pending ones, for output_for_next: its output.
    OutputQueue& queue_slot(bool close_after);
    Slot* find_slot(const slipstream::detail::PendingResponse& pending);
    void drain_slots();
    void on_handler_timeout(slipstream::detail::PendingResponse& pending);
    // Drain: ends an event stream cleanly (final chunk) and cancels its producer.
    void end_event_stream(slipstream::detail::PendingResponse& pending);
    // Flow control: tells each unfinished response how much unsent output is ahead of (and includes) it.
    // Inline: the keep-alive common case (no slot) is one test, no call.
    void update_stream_backlogs() {
        if (!slots_.empty()) update_slot_backlogs();
    }
    void update_slot_backlogs();
    // The bytes of `slot`'s response the socket took (what the access log reports for a cut response).
    std::size_t written_bytes(const Slot& slot) const;
    void on_eof();
    void schedule_flush();
    void flush();
    /// `progressed`: bytes were just read (on_readable), so the body/write timer is pushed back too.
    void after_output(bool progressed = false);
    void set_reading(bool on);
    void refresh_timer(bool progressed);
    void arm(TimerReason reason, std::uint32_t ms);
    void arm_at(TimerReason reason, base::MonoNanos deadline);
    // The body or write timer: inactivity, or the minimum rate once its grace has passed.
    void arm_transfer(bool body);
    void on_timer();
    void start_linger();
    void linger_read();
    void close();

    // WebSocket (websocket_upgrade.cpp): after a valid upgrade, `ws_` consumes every byte read.
    void upgrade_websocket(const http::h1::RequestHead& head, slipstream::detail::RequestState& state,
                           const RouteEntry& entry, RequestRecord& record, const EncodeContext& ctx);
    OutputQueue& ws_output() override;
    void ws_flush_soon() override;
    void ws_close_after_output() override;
    void ws_abort() override;
    // Unsent output past which reading pauses: lower on a WebSocket, so sends made while reading (an echo)
    // reach the pause before the send queue's cap drops them.
    std::size_t output_limit() const;

    // TLS and HTTP/2 (connection_h2.cpp): the handshake, then `h2_` takes every byte read when ALPN chose
    // "h2" or a cleartext connection opened with the HTTP/2 preface.
    void tls_handshake();
    // True when `data` is (the start of) the cleartext HTTP/2 preface and was taken for HTTP/2.
    bool start_h2c(std::string_view data, bool from_scratch);
    void start_h2(std::string_view first_bytes);
    // RFC 7540 §3.2 h2c upgrade of an HTTP/1.1 request (true: answered 101, now HTTP/2); then the bytes that
    // followed the request in the same read go to the session (returns how many were taken).
    bool upgrade_h2c(const http::h1::RequestHead& head, std::string_view body);
    std::size_t h2c_input(std::string_view data);
    void h2_on_readable();
    // Moves frames into the output and writes them; closes once the session is finished.
    void h2_pump();
    void h2_refresh_timer(bool progressed);
    void h2_note_input(std::size_t n);  // input while request bodies are awaited: the body's minimum rate
    void h2_on_timer();

    Worker& worker_;
    net::Fd fd_;
    Transport transport_;  // over fd_: plain or TLS
    net::SocketAddress peer_;
    Phase phase_ = Phase::kHead;
    base::Buffer in_;  // a partial request (head, or head + body so far)
    OutputQueue out_;
    HeadCache head_cache_;  // the last response head of this connection, replayed for an equal response
    std::deque<Slot> slots_;
    net::Timer timer_;
    TimerReason timer_reason_ = TimerReason::kNone;

    // The request being read when its body has not fully arrived.
    std::string head_bytes_;
    std::uint64_t body_needed_ = 0;
    std::unique_ptr<http::h1::ChunkedDecoder> chunk_decoder_;  // set while reading a chunked body
    std::string body_;
    base::MonoNanos body_start_ = 0;        // when the body began to be awaited (its minimum rate counts from here)
    std::uint64_t body_bytes_ = 0;          // body bytes read so far (chunk framing included)
    base::MonoNanos body_progress_at_ = 0;  // the last body byte (for the timeout's kind)
    bool h2_receiving_ = false;             // HTTP/2: request bodies were awaited at the last input
    // A write episode: from the first time output had to wait for the client until the client has taken all of
    // it (the kernel's queue included); its bytes must average write_min_rate after the write timeout's grace.
    base::MonoNanos write_start_ = 0;
    std::uint64_t write_bytes_ = 0;          // bytes the socket took since write_start_
    base::MonoNanos write_progress_at_ = 0;  // the last time the socket took bytes (for the timeout's kind)
    bool write_episode_ = false;

    std::uint32_t requests_ = 0;
    std::uint32_t events_ = 0;
    bool close_after_write_ = false;  // stop reading; close once the output drained
    bool reading_ = true;
    bool write_blocked_ = false;
    bool flush_scheduled_ = false;
    bool draining_ = false;
    bool lingering_ = false;
    bool eof_ = false;
    bool closed_ = false;
    std::size_t linger_bytes_ = 0;
    std::unique_ptr<WebSocketSession> ws_;  // set once the connection was upgraded to WebSocket
    std::unique_ptr<H2Session> h2_;         // set once the connection speaks HTTP/2
    bool handshaking_ = false;              // the TLS handshake has not finished
};

}  // namespace slipstream::server
