// Connection: one HTTP/1.1 client connection on its I/O thread: read, parse, dispatch, answer in order.
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
#include "server/output_queue.h"
#include "server/pending_response.h"
#include "server/response_encoder.h"
#include "server/worker.h"
#include "slipstream/app.h"
#include "slipstream/response.h"

namespace slipstream::server {

class Worker;

/// Lives on one I/O thread from accept to close; owned by its Worker. Requests are parsed straight from
/// the worker's read buffer when they arrive whole (no per-connection input memory); only a partial
/// request is kept in `in_`. Responses of pipelined requests are written in request order: a response
/// that is ready while an earlier one is still pending waits in its slot.
class Connection final : public net::IoHandler {
  public:
    Connection(Worker& worker, net::Fd fd, net::SocketAddress peer);
    ~Connection();

    /// Registers with the loop and arms the first-request deadline. Returns false if registration failed.
    bool start();
    void on_io(std::uint32_t events) override;

    /// The server is draining: close at once when idle, else after the requests in progress.
    void begin_drain();

    // Called on the loop thread with an asynchronous handler's output.
    void deliver_response(slipstream::detail::PendingResponse& pending, Response&& response);
    void deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head);
    void deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk);
    /// `aborted`: the producer gave up mid-stream; the connection closes without a clean end.
    void deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted);

    bool idle() const;

  private:
    enum class Phase : std::uint8_t { kHead, kBody, kClosing };
    enum class TimerReason : std::uint8_t { kNone, kHead, kBody, kIdle, kWrite, kLinger };

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
    };

    void on_readable();
    void process(std::string_view data, bool from_scratch);
    // Returns bytes consumed from `data`; 0 when more bytes are needed or the connection is closing.
    std::size_t process_one(std::string_view data);
    std::size_t read_chunked_body(std::string_view data);
    std::size_t start_body(std::string_view data, std::size_t head_len);
    void dispatch(const http::h1::RequestHead& head, std::string_view body);
    void dispatch_async(const AsyncHandler& handler, slipstream::detail::RequestState& state, Slot&& slot);
    // Encodes into `slot` and records the bytes (and the status of its first response).
    void observe_slot(Slot& slot, std::size_t before, int status);
    EncodeContext slot_context(const Slot& slot);
    // Marks a slot's response complete, records it, and writes what can be written.
    void complete_slot(Slot& slot);
    void answer_error(const http::h1::ParseError& error);
    // Queues a finished response: straight to the output when no earlier response is pending.
    OutputQueue& output_for_next(bool close_after);
    Slot* find_slot(const slipstream::detail::PendingResponse& pending);
    void drain_slots();
    void on_handler_timeout(slipstream::detail::PendingResponse& pending);
    void on_eof();
    void schedule_flush();
    void flush();
    void after_output();
    void set_reading(bool on);
    void refresh_timer(bool progressed);
    void arm(TimerReason reason, std::uint32_t ms);
    void on_timer();
    void start_linger();
    void linger_read();
    void close();

    Worker& worker_;
    net::Fd fd_;
    net::SocketAddress peer_;
    Phase phase_ = Phase::kHead;
    base::Buffer in_;  // a partial request (head, or head + body so far)
    OutputQueue out_;
    std::deque<Slot> slots_;
    net::Timer timer_;
    TimerReason timer_reason_ = TimerReason::kNone;

    // The request being read when its body has not fully arrived.
    std::string head_bytes_;
    std::uint64_t body_needed_ = 0;
    std::unique_ptr<http::h1::ChunkedDecoder> chunk_decoder_;  // set while reading a chunked body
    std::string body_;

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
};

}  // namespace slipstream::server
