// H1Session: the HTTP/1.1 protocol of a connection: parse, body, dispatch, ordered answers, timers, drain.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "http/h1/chunked_decoder.h"
#include "http/h1/parse_error.h"
#include "http/h1/request_head.h"
#include "server/conn/connection.h"
#include "server/conn/pending_response.h"
#include "server/conn/protocol_session.h"
#include "server/conn/response_sink.h"
#include "server/conn/worker.h"
#include "server/core/output_queue.h"
#include "server/encode/response_encoder.h"
#include "slipstream/app.h"
#include "slipstream/response.h"

namespace slipstream::server {

class RequestPipeline;
struct PipelineRequest;

/// Every connection starts with it. Requests are parsed straight from the worker's read buffer when they arrive
/// whole (no per-connection input memory); only a partial request is kept in the connection's input. Responses
/// of pipelined requests are written in request order: a response that is ready while an earlier one is still
/// pending waits in its slot (the ResponseSink of asynchronous answers). An upgrade switches the connection to
/// WebSocket (websocket_upgrade.cpp) or HTTP/2 (h2c_upgrade.cpp). Loop thread only.
class H1Session final : public ProtocolSession, public ResponseSink {
  public:
    explicit H1Session(Connection& connection);
    ~H1Session() override;
    /// SessionFactory::open.
    static std::unique_ptr<ProtocolSession> open(Connection& connection) {
        return std::make_unique<H1Session>(connection);
    }

    void on_read(std::string_view data, bool from_scratch) override;
    void on_eof() override;
    void after_output() override { after_output(false); }
    void on_timer(TimerReason reason) override;
    void refresh_timer(bool progressed) override;
    void begin_drain() override;
    void on_closed() override;
    bool idle() const override;
    bool owes_output() const override { return !slots_.empty(); }

    // ResponseSink (h1_answers.cpp).
    void deliver_response(slipstream::detail::PendingResponse& pending, Response&& response) override;
    void deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head) override;
    void deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk) override;
    void deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted) override;

  private:
    enum class Phase : std::uint8_t { kHead, kBody, kClosing };

    // A response slot for a request whose answer cannot be written yet (or is being streamed).
    struct Slot {
        SinkLink pending;
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
        if (close_after) conn_.set_closing();
        return slots_.empty() ? conn_.output() : queue_slot(close_after);
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
    // Resumes reading once the pipeline drained, and serves requests that were waiting in the input.
    // `progressed`: bytes were just read (on_read), so the body/write timer is pushed back too.
    void after_output(bool progressed);
    // After an upgrade: the new session takes the input that followed the request and goes on as after a read.
    void hand_over();

    // WebSocket (websocket_upgrade.cpp): after a valid upgrade the connection speaks WebSocket (UpgradedWebSocket).
    void upgrade_websocket(const http::h1::RequestHead& head, slipstream::detail::RequestState& state,
                           const RouteEntry& entry, RequestRecord& record, const EncodeContext& ctx);

    // HTTP/2 (h2c_upgrade.cpp). True when `data` is (the start of) the cleartext HTTP/2 preface and was taken for
    // HTTP/2 (or closed as a broken one).
    bool start_h2c(std::string_view data, bool from_scratch);
    // RFC 7540 §3.2 h2c upgrade of an HTTP/1.1 request (true: answered 101, the connection speaks HTTP/2 now).
    bool upgrade_h2c(const http::h1::RequestHead& head, std::string_view body);

    Connection& conn_;
    Worker& worker_;
    // Set when the connection switched to another protocol during process() (the connection owns it).
    ProtocolSession* upgraded_ = nullptr;
    Phase phase_ = Phase::kHead;
    HeadCache head_cache_;  // the last response head of this connection, replayed for an equal response
    std::deque<Slot> slots_;

    // The request being read when its body has not fully arrived.
    std::string head_bytes_;
    std::uint64_t body_needed_ = 0;
    std::unique_ptr<http::h1::ChunkedDecoder> chunk_decoder_;  // set while reading a chunked body
    std::string body_;
    std::uint32_t requests_ = 0;
};

}  // namespace slipstream::server
