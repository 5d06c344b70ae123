// Connection: the HTTP/1.1 state machine of one client connection.
#include "server/connection.h"

#include <sys/epoll.h>

#include <algorithm>
#include <vector>

#include "http/h1/parser.h"
#include "net/socket.h"
#include "server/core/transfer_deadline.h"
#include "server/h1/method_map.h"
#include "server/h1/response_encoder.h"
#include "server/request_pipeline.h"
#include "server/worker.h"

namespace slipstream::server {

namespace h1 = http::h1;

namespace {
constexpr std::uint32_t kLingerMs = 2000;
constexpr std::uint32_t kDrainIdleGraceMs = 100;

constexpr std::size_t kLingerMaxBytes = 16 * 1024 * 1024;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
}  // namespace

Connection::Connection(Worker& worker, net::Fd fd, net::SocketAddress peer, std::unique_ptr<net::tls::TlsStream> tls)
    : worker_(worker), fd_(std::move(fd)), transport_(fd_.get(), std::move(tls)), peer_(peer), timer_([this] {
          on_timer();
      }) {}

Connection::~Connection() {
    for (Slot& s : slots_) {
        if (!s.pending) continue;
        s.pending->connection = nullptr;
        s.pending->cancel();
        s.pending->handler_timer.cancel();
    }
}

bool Connection::start() {
    events_ = EPOLLIN | EPOLLRDHUP;
    if (!transport_.register_with(worker_.loop(), events_, this).is_ok()) return false;
    handshaking_ = transport_.tls() != nullptr;
    if (handshaking_) {
        arm(TimerReason::kHandshake, worker_.options().tls_handshake_timeout_ms);
    } else {
        arm(TimerReason::kIdle, worker_.options().keepalive_timeout_ms);
    }
    return true;
}

bool Connection::idle() const {
    if (h2_) return !h2_->busy() && out_.empty();
    return phase_ == Phase::kHead && in_.empty() && slots_.empty() && out_.empty() && !ws_;
}

void Connection::on_io(std::uint32_t events) {
    if (lingering_) {
        linger_read();
        return;
    }
    if (handshaking_) {
        tls_handshake();
        return;
    }
    if (events & EPOLLOUT) {
        flush();
        if (closed_) return;
        after_output();  // output drained: resume reading and serve what waits in in_
        if (closed_) return;
    }
    // A TLS read that had to wait for writability is retried on EPOLLOUT.
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) || transport_.read_wants_write()) on_readable();
}

// ---- reading ----

void Connection::on_readable() {
    if (h2_) {
        h2_on_readable();
        return;
    }
    if (!reading_ || closed_) return;
    bool from_scratch = in_.empty();
    std::span<char> space = from_scratch ? worker_.read_scratch() : in_.prepare(16 * 1024);
    base::Result<std::size_t> r = transport_.read(space);
    if (!r.is_ok()) {
        if (!r.status().is_unavailable()) close();
        return;
    }
    if (*r == 0) {
        on_eof();
        return;
    }
    if (from_scratch) {
        process({space.data(), *r}, true);
    } else {
        in_.commit(*r);
        process(in_.view(), false);
    }
    if (closed_) return;
    flush();
    if (closed_) return;
    after_output(true);  // reading may have paused for output that has now drained; re-arms the timer
    // TLS may hold decrypted bytes the socket will not signal again: read them in this iteration.
    if (!closed_ && transport_.has_buffered_input()) {
        worker_.loop().defer([this] {
            if (!closed_) on_readable();
        });
    }
}

void Connection::process(std::string_view data, bool from_scratch) {
    if (requests_ == 0 && phase_ == Phase::kHead && !ws_ && !h2_ && start_h2c(data, from_scratch)) return;
    std::size_t off = 0;
    while (!closed_ && reading_ && !close_after_write_ && off < data.size()) {
        // An empty deque's size() is still a computation: the keep-alive case (no slot) skips it.
        const std::size_t pending = slots_.empty() ? 0 : slots_.size();
        if (pending >= worker_.options().max_pipelined || out_.size() >= output_limit()) {
            set_reading(false);  // resumes when responses drained
            break;
        }
        std::size_t n = process_one(data.substr(off));
        if (n == 0) break;
        off += n;
    }
    if (closed_) return;
    if (from_scratch) {
        if (off < data.size() && !close_after_write_) in_.append(data.substr(off));
    } else {
        in_.consume(off);
    }
}

std::size_t Connection::process_one(std::string_view data) {
    if (ws_) {
        ws_->on_bytes(data);
        return data.size();
    }
    if (h2_) return h2c_input(data);  // after an h2c upgrade (connection_h2.cpp)
    if (phase_ == Phase::kBody) {
        std::size_t n = read_chunked_body(data);
        body_bytes_ += n;
        if (n > 0) body_progress_at_ = worker_.loop().now();
        return n;
    }
    auto headers = worker_.header_scratch();
    h1::RequestHead head;
    h1::ParseStatus st = h1::parse_request(data, worker_.limits(), &head, headers.data(), headers.size());
    if (st.is_incomplete()) return 0;
    if (st.is_error()) {
        answer_error(st.error);
        return 0;
    }
    std::size_t head_len = st.consumed;
    if (head.body_kind == h1::BodyKind::kNone ||
        (head.body_kind == h1::BodyKind::kContentLength && data.size() - head_len >= head.content_length)) {
        std::size_t body_len = head.body_kind == h1::BodyKind::kNone ? 0 : head.content_length;
        dispatch(head, data.substr(head_len, body_len));
        return head_len + body_len;
    }
    // The body has not fully arrived: keep the head, collect the body in body_.
    if (head.expect_continue && slots_.empty()) output_for_next(false).append(kContinue);
    return start_body(data, head_len);
}

std::size_t Connection::start_body(std::string_view data, std::size_t head_len) {
    head_bytes_.assign(data.substr(0, head_len));
    h1::RequestHead head;
    auto headers = worker_.header_scratch();
    (void)h1::parse_request(head_bytes_, worker_.limits(), &head, headers.data(), headers.size());
    body_.clear();
    phase_ = Phase::kBody;
    body_start_ = body_progress_at_ = worker_.loop().now();
    body_bytes_ = 0;
    if (head.body_kind == h1::BodyKind::kChunked) {
        chunk_decoder_ = std::make_unique<h1::ChunkedDecoder>(worker_.limits());
        body_needed_ = 0;
    } else {
        chunk_decoder_.reset();
        body_needed_ = head.content_length;
        body_.reserve(body_needed_);
    }
    return head_len;
}

std::size_t Connection::read_chunked_body(std::string_view data) {
    std::size_t consumed = 0;
    bool done = false;
    if (chunk_decoder_) {
        while (!done) {
            h1::ChunkedDecoder::Step step = chunk_decoder_->decode(data.substr(consumed));
            consumed += step.consumed;
            switch (step.event) {
                case h1::ChunkedDecoder::Event::kData:
                    body_.append(step.data);
                    break;
                case h1::ChunkedDecoder::Event::kNeedMore:
                    return consumed;
                case h1::ChunkedDecoder::Event::kDone:
                    done = true;
                    break;
                case h1::ChunkedDecoder::Event::kError:
                    answer_error(step.error);
                    return 0;
            }
        }
    } else {
        std::size_t take = std::min<std::size_t>(data.size(), body_needed_ - body_.size());
        body_.append(data.substr(0, take));
        consumed = take;
        if (body_.size() < body_needed_) return consumed;
    }
    // Whole body: parse the kept head again for views into head_bytes_ and dispatch.
    phase_ = Phase::kHead;
    chunk_decoder_.reset();
    h1::RequestHead head;
    auto headers = worker_.header_scratch();
    (void)h1::parse_request(head_bytes_, worker_.limits(), &head, headers.data(), headers.size());
    dispatch(head, body_);
    return consumed;
}

void Connection::on_eof() {
    eof_ = true;
    set_reading(false);
    // A client that closes during a streamed response has left (it would read to the end otherwise): cut
    // the stream now, so its producer hears of it at once rather than at a failed write.
    for (const Slot& s : slots_) {
        if (s.pending && s.pending->stream.active()) {
            close();
            return;
        }
    }
    if (slots_.empty() && out_.empty()) {
        close();
        return;
    }
    close_after_write_ = true;  // answer what was asked, then close
    flush();
}

// ---- dispatch ----

void Connection::dispatch(const h1::RequestHead& head, std::string_view body) {
    ++requests_;
    if (head.upgrade && upgrade_h2c(head, body)) return;  // "Upgrade: h2c" (connection_h2.cpp)
    const ServerOptions& opts = worker_.options();
    bool keep_alive = head.keep_alive && !worker_.draining() && requests_ < opts.max_requests_per_connection;
    // Built in place, each member written once (find_request_fields sets the last three).
    RequestInput in{.method = head.method,
                    .method_id = to_router_method(head.method_id, head.method),
                    .target = head.target,
                    .path = head.path,
                    .query = head.query,
                    .headers = head.headers,
                    .body = body,
                    .version = head.version,
                    .http2 = false,
                    .peer = &peer_,
                    .client_request_id = {},
                    .traceparent = {},
                    .content_encoding = false};
    find_request_fields(in);
    RequestPipeline pipeline(worker_);
    PipelineRequest req;
    NextStep next = pipeline.route(in, req);
    EncodeContext ctx{head.version,   keep_alive,         req.head_only,
                      worker_.date(), opts.server_header, worker_.response_request_id(req.record.request_id),
                      &head_cache_};
    switch (next) {
        case NextStep::kAnswerAndClose:
            ctx.keep_alive = false;
            answer_now(std::move(req.answer), ctx, req.record);
            return;
        case NextStep::kAnswer:
            answer_now(std::move(req.answer), ctx, req.record);
            return;
        case NextStep::kWebSocket:
            upgrade_websocket(head, req.state, *req.entry, req.record, ctx);
            return;
        case NextStep::kSync:
            answer_now(pipeline.call(req, true), ctx, req.record);
            return;
        case NextStep::kAsync:
            dispatch_async(pipeline, req, ctx);
            return;
    }
}

void Connection::answer_now(Response&& response, const EncodeContext& ctx, const RequestRecord& record) {
    OutputQueue& out = output_for_next(!ctx.keep_alive);
    std::size_t before = out.size();
    int status = response.status;
    if (!encode_response(std::move(response), ctx, out)) status = 500;
    worker_.observe(record, status, out.size() - before, peer_);
}

void Connection::dispatch_async(RequestPipeline& pipeline, PipelineRequest& req, const EncodeContext& ctx) {
    HandlerCount::Ticket admitted = pipeline.admit();
    if (!admitted && worker_.handlers()) {  // max_handlers_in_flight run already
        Response refusal = RequestPipeline::overloaded();
        pipeline.add_cors_fields(req.state.headers, refusal);
        answer_now(std::move(refusal), ctx, req.record);
        return;
    }
    std::shared_ptr<slipstream::detail::PendingResponse> pending = pipeline.detach(req, *this);
    pending->admitted = std::move(admitted);
    slipstream::detail::PendingResponse* raw = pending.get();
    pending->handler_timer.set_callback([this, raw] { on_handler_timeout(*raw); });
    // The answer's place in the pipeline of responses (HTTP/1.1 answers leave in request order).
    Slot slot;
    slot.version = ctx.version;
    slot.keep_alive = ctx.keep_alive;
    slot.head_only = ctx.head_only;
    slot.close_after = !ctx.keep_alive;
    slot.record = req.record;
    slot.request_id = pending->request.request_id;
    slot.pending = pending;
    if (slot.close_after) close_after_write_ = true;
    slots_.push_back(std::move(slot));
    pipeline.call_async(req, pending);
}

void Connection::observe_slot(Slot& slot, std::size_t before, int status) {
    slot.response_bytes += slot.bytes.size() - before;
    if (slot.status == 0) slot.status = status;
}

OutputQueue& Connection::queue_slot(bool close_after) {
    Slot slot;
    slot.complete = true;
    slot.close_after = close_after;
    slots_.push_back(std::move(slot));
    return slots_.back().bytes;
}

void Connection::answer_error(const h1::ParseError& error) {
    worker_.metrics().parse_errors.with({error.reason}).inc();
    EncodeContext ctx{h1::Version::kHttp11, false, false, worker_.date(), worker_.options().server_header, {}};
    OutputQueue& out = output_for_next(true);
    std::size_t before = out.size();
    encode_error({error.http_status, error.reason}, ctx, out);
    RequestRecord record;
    record.start = base::mono_now();
    worker_.observe(record, error.http_status, out.size() - before, peer_);
    phase_ = Phase::kClosing;
    in_.clear();
}

// ---- asynchronous answers (loop thread) ----

Connection::Slot* Connection::find_slot(const slipstream::detail::PendingResponse& pending) {
    for (Slot& s : slots_) {
        if (s.pending.get() == &pending) return &s;
    }
    return nullptr;
}

EncodeContext Connection::slot_context(Slot& slot) {
    // Keep-alive is decided here, when the answer is encoded, not at dispatch: a drain that began while the
    // handler ran makes the last answer the connection owes (no later slot, no request being read) say
    // Connection: close, so the client reconnects instead of losing its next request to our close.
    if (draining_ && slot.keep_alive && &slot == &slots_.back() && in_.empty() && phase_ == Phase::kHead) {
        slot.keep_alive = false;
        slot.close_after = true;
        close_after_write_ = true;  // read no further request: the client was told to go
    }
    return EncodeContext{slot.version,
                         slot.keep_alive,
                         slot.head_only,
                         worker_.date(),
                         worker_.options().server_header,
                         worker_.response_request_id(slot.request_id)};
}

void Connection::complete_slot(Slot& slot) {
    slot.complete = true;
    worker_.metrics().in_flight.dec();
    worker_.observe(slot.record, slot.status, slot.response_bytes, peer_, slot.aborted);
    drain_slots();
    schedule_flush();
}

void Connection::deliver_response(slipstream::detail::PendingResponse& pending, Response&& response) {
    if (h2_) {
        h2_->deliver_response(pending, std::move(response));
        return;
    }
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    RequestPipeline(worker_).finish_response(pending, response);  // compression
    std::size_t before = slot->bytes.size();
    int status = response.status;
    if (!encode_response(std::move(response), slot_context(*slot), slot->bytes)) status = 500;
    observe_slot(*slot, before, status);
    complete_slot(*slot);
}

void Connection::deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head) {
    if (h2_) {
        h2_->deliver_stream_head(pending, std::move(head));
        return;
    }
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    pending.handler_timer.cancel();
    if (slot->version == h1::Version::kHttp10) {
        slot->keep_alive = false;  // the body is delimited by the close
        slot->close_after = true;
    }
    std::size_t before = slot->bytes.size();
    int status = head.status;
    pending.stream.set_high_water(worker_.options().stream_high_water_bytes);
    // Compression, SSE heartbeats, CORS fields.
    RequestPipeline(worker_).begin_stream(pending, head, response_valid(head));
    bool ok = encode_stream_head(std::move(head), slot_context(*slot), slot->bytes);
    observe_slot(*slot, before, ok ? status : 500);
    if (!ok) {
        complete_slot(*slot);
        return;
    }
    drain_slots();
    schedule_flush();
    if (draining_ && pending.stream.event_stream_active()) end_event_stream(pending);  // began during the drain
}

void Connection::deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk) {
    if (h2_) {
        h2_->deliver_stream_chunk(pending, std::move(chunk));
        return;
    }
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete || slot->head_only) return;
    std::size_t before = slot->bytes.size();
    chunk = pending.stream.transform(std::move(chunk));  // compressed and flushed when the stream is
    encode_stream_chunk(chunk, slot->version, slot->bytes);
    observe_slot(*slot, before, 0);
    drain_slots();
    update_stream_backlogs();  // before the producer's posted count drops (see Responder::write)
    schedule_flush();
}

void Connection::deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted) {
    if (h2_) {
        h2_->deliver_stream_end(pending, aborted);
        return;
    }
    std::string tail = pending.stream.finish(aborted);  // the encoder's last bytes; stops heartbeats
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    std::size_t before = slot->bytes.size();
    if (aborted) {
        slot->close_after = true;  // a truncated body must not look complete
        slot->aborted = true;
    } else if (!slot->head_only) {
        encode_stream_chunk(tail, slot->version, slot->bytes);
        encode_stream_end(slot->version, slot->bytes);
    }
    observe_slot(*slot, before, 0);
    complete_slot(*slot);
}

void Connection::on_handler_timeout(slipstream::detail::PendingResponse& pending) {
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    pending.cancel();  // the producer's on_cancel runs (a Python task is cancelled, its generator closed)
    worker_.metrics().timeouts.with({"handler"}).inc();
    std::size_t before = slot->bytes.size();
    if (pending.answered.exchange(true)) {
        slot->close_after = true;  // a stream already started: cut it
        slot->aborted = true;
    } else {
        Response timeout = problem_response({504, "the handler did not answer in time"});
        RequestPipeline(worker_).add_cors_fields(pending.request.headers, timeout);
        encode_response(std::move(timeout), slot_context(*slot), slot->bytes);
    }
    observe_slot(*slot, before, 504);
    complete_slot(*slot);
}

void Connection::end_event_stream(slipstream::detail::PendingResponse& pending) {
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    std::shared_ptr<slipstream::detail::PendingResponse> keep = slot->pending;  // the slot may be popped
    slot->close_after = true;
    keep->ended.store(true);  // the producer's later write() and end() are no-ops
    deliver_stream_end(*keep, false);
    keep->cancel();
}

void Connection::update_slot_backlogs() {
    std::size_t ahead = out_.size();
    for (Slot& s : slots_) {
        ahead += s.bytes.size();
        if (s.pending && !s.complete) s.pending->stream.set_backlog(ahead);
    }
}

std::size_t Connection::written_bytes(const Slot& slot) const {
    // Only the front slot's bytes move to out_ before it is complete; the unsent rest of out_ is its tail.
    std::size_t moved = slot.response_bytes - std::min(slot.response_bytes, slot.bytes.size());
    return moved - std::min(moved, out_.size());
}

void Connection::drain_slots() {
    while (!slots_.empty()) {
        Slot& front = slots_.front();
        out_.take_all(front.bytes);
        if (!front.complete) break;
        if (front.close_after) close_after_write_ = true;
        front.pending.reset();
        slots_.pop_front();
    }
}

// ---- writing ----

void Connection::schedule_flush() {
    if (flush_scheduled_ || closed_) return;
    flush_scheduled_ = true;
    worker_.loop().defer([this] {
        flush_scheduled_ = false;
        if (closed_) return;
        flush();
        if (!closed_) after_output();
    });
}

void Connection::flush() {
    if (closed_) return;
    if (!out_.empty()) {
        // A slow client's episode ends only once it has taken everything (the kernel's queue included): output
        // that fits in the socket's buffer must not restart the minimum-rate grace at every write.
        if (write_episode_ && !write_blocked_ && net::unsent_bytes(fd_.get()) == 0) write_episode_ = false;
        base::Result<std::size_t> r = transport_.flush(out_, worker_.write_scratch());
        if (!r.is_ok() && !r.status().is_unavailable()) {
            close();
            return;
        }
        if (write_episode_ && r.is_ok() && *r > 0) {
            write_bytes_ += *r;
            write_progress_at_ = worker_.loop().now();
        }
        bool blocked = !out_.empty();
        if (blocked && !write_episode_) {
            write_episode_ = true;  // the minimum rate counts from here
            write_start_ = write_progress_at_ = worker_.loop().now();
            write_bytes_ = 0;
        }
        if (blocked != write_blocked_) {
            write_blocked_ = blocked;
            std::uint32_t want = (events_ & ~static_cast<std::uint32_t>(EPOLLOUT)) | (blocked ? EPOLLOUT : 0u);
            if (want != events_) {
                events_ = want;
                worker_.loop().modify(fd_.get(), events_).ignore_error();
            }
        }
        if (blocked) {
            refresh_timer(r.is_ok() && *r > 0);
            return;
        }
    }
    if (close_after_write_ && slots_.empty()) {
        if (eof_) {
            close();
        } else {
            start_linger();
        }
    }
}

// Resumes reading once the pipeline drained, and serves requests that were waiting in in_. With `progressed`
// (from on_readable) every path that leaves the connection open refreshes the timer exactly once.
void Connection::after_output(bool progressed) {
    update_stream_backlogs();  // flow control: producers paused on this connection may resume
    if (ws_ && !closed_) ws_->after_output(out_.size());
    if (h2_) {
        if (closed_) return;
        h2_pump();  // frames that waited for room in the output
        if (!closed_) refresh_timer(progressed);
        return;
    }
    if (closed_) return;
    if (close_after_write_ || eof_) {
        if (progressed) refresh_timer(true);
        return;
    }
    // Draining and idle after a keep-alive answer (one whose head left before the drain began): the idle
    // grace below applies, as to any idle connection at the drain start, rather than a close that would race
    // with the client's next request.
    // Each round serves buffered requests until reading pauses again; it repeats only while the socket
    // takes the output at once, and every round consumes buffered input, so it ends.
    while (!reading_ && !close_after_write_ && slots_.size() < worker_.options().max_pipelined &&
           out_.size() < output_limit()) {
        set_reading(true);
        if (in_.empty()) break;
        process(in_.view(), false);
        if (closed_) return;
        flush();
        if (closed_) return;
    }
    if (!closed_) refresh_timer(progressed);
}

void Connection::set_reading(bool on) {
    if (reading_ == on || closed_) return;
    reading_ = on;
    std::uint32_t want =
        on ? (events_ | EPOLLIN | EPOLLRDHUP) : (events_ & ~static_cast<std::uint32_t>(EPOLLIN | EPOLLRDHUP));
    if (want != events_) {
        events_ = want;
        worker_.loop().modify(fd_.get(), events_).ignore_error();
    }
}

// ---- timers ----

void Connection::arm(TimerReason reason, std::uint32_t ms) {
    arm_at(reason, worker_.loop().now() + std::int64_t{ms} * base::kNanosPerMilli);
}

void Connection::arm_at(TimerReason reason, base::MonoNanos deadline) {
    // Refreshed again within the same loop iteration (the deferred flush, say): nothing to move.
    if (timer_reason_ == reason && timer_.scheduled() && timer_.deadline() == deadline) return;
    timer_reason_ = reason;
    worker_.loop().timers().schedule(timer_, deadline);
}

void Connection::arm_transfer(bool body) {
    const ServerOptions& o = worker_.options();
    TransferDeadline d =
        body
            ? transfer_deadline(worker_.loop().now(), body_start_, body_bytes_, o.body_timeout_ms, o.body_min_rate)
            : transfer_deadline(worker_.loop().now(), write_start_, write_bytes_, o.write_timeout_ms, o.write_min_rate);
    TimerReason reason = body ? (d.by_rate ? TimerReason::kBodyRate : TimerReason::kBody)
                              : (d.by_rate ? TimerReason::kWriteRate : TimerReason::kWrite);
    arm_at(reason, d.at);
}

void Connection::refresh_timer(bool progressed) {
    const ServerOptions& o = worker_.options();
    if (lingering_) return;
    if (write_blocked_) {
        const bool armed = timer_reason_ == TimerReason::kWrite || timer_reason_ == TimerReason::kWriteRate;
        if (!armed || progressed) arm_transfer(false);
    } else if (ws_) {
        timer_.cancel();  // the WebSocket session keeps its own ping and close timers
        timer_reason_ = TimerReason::kNone;
    } else if (h2_) {
        h2_refresh_timer(progressed);
    } else if (phase_ == Phase::kBody) {
        const bool armed = timer_reason_ == TimerReason::kBody || timer_reason_ == TimerReason::kBodyRate;
        if (!armed || progressed) arm_transfer(true);
    } else if (!in_.empty()) {
        if (timer_reason_ != TimerReason::kHead) arm(TimerReason::kHead, o.header_timeout_ms);
    } else if (slots_.empty()) {
        arm(TimerReason::kIdle, draining_ ? kDrainIdleGraceMs : o.keepalive_timeout_ms);
    } else {
        timer_.cancel();  // waiting for a handler: its own timer runs
        timer_reason_ = TimerReason::kNone;
    }
}

void Connection::on_timer() {
    static constexpr std::string_view kKinds[] = {"",       "header",        "body",      "idle",      "write",
                                                  "linger", "tls_handshake", "body_rate", "write_rate"};
    if (timer_reason_ != TimerReason::kNone) {
        TimerReason kind = timer_reason_;
        // The rate deadline of a transfer that has not moved for a whole timeout is a plain inactivity timeout
        // (a client that stopped reading, or stopped sending its body, rather than one that trickles).
        const base::MonoNanos now = worker_.loop().now();
        const ServerOptions& o = worker_.options();
        if (kind == TimerReason::kWriteRate && now - write_progress_at_ >= o.write_timeout_ms * base::kNanosPerMilli)
            kind = TimerReason::kWrite;
        if (kind == TimerReason::kBodyRate && now - body_progress_at_ >= o.body_timeout_ms * base::kNanosPerMilli)
            kind = TimerReason::kBody;
        worker_.metrics().timeouts.with({kKinds[static_cast<int>(kind)]}).inc();
    }
    if (h2_ && (timer_reason_ == TimerReason::kIdle || timer_reason_ == TimerReason::kBody ||
                timer_reason_ == TimerReason::kBodyRate)) {
        h2_on_timer();
        return;
    }
    switch (timer_reason_) {
        case TimerReason::kHandshake:
            close();
            return;
        case TimerReason::kHead:
        case TimerReason::kBody:
        case TimerReason::kBodyRate:
            if (slots_.empty() && out_.empty()) {
                EncodeContext ctx{
                    h1::Version::kHttp11, false, false, worker_.date(), worker_.options().server_header, {}};
                encode_error({408, "the request was not received in time"}, ctx, out_);
                RequestRecord record;
                record.start = base::mono_now();
                worker_.observe(record, 408, out_.size(), peer_);
                close_after_write_ = true;
                eof_ = true;  // no linger: the client is too slow already
                set_reading(false);
                flush();
                if (!closed_ && !out_.empty()) close();  // the client is not reading either
                return;
            }
            close();
            return;
        case TimerReason::kIdle:
        case TimerReason::kWrite:
        case TimerReason::kWriteRate:
        case TimerReason::kLinger:
            close();
            return;
        case TimerReason::kNone:
            return;
    }
}

// ---- closing ----

void Connection::begin_drain() {
    draining_ = true;
    if (ws_ && !closed_) ws_->begin_drain();
    if (h2_ && !closed_) {
        h2_->begin_drain();  // event streams end, GOAWAY; the others finish (or the deadline cuts them)
        h2_pump();
        return;
    }
    if (closed_) return;
    // Event streams never end by themselves: end them cleanly so their clients reconnect elsewhere.
    std::vector<std::shared_ptr<slipstream::detail::PendingResponse>> streams;
    for (const Slot& s : slots_) {
        if (s.pending && !s.complete && s.pending->stream.event_stream_active()) streams.push_back(s.pending);
    }
    for (const auto& p : streams)
        end_event_stream(*p);
    if (closed_ || !idle()) return;  // busy connections close after their current response
    // An idle keep-alive connection gets a short grace: a request already on its way is still answered
    // (with Connection: close) instead of being lost to a close racing with the client's send.
    arm(TimerReason::kIdle, kDrainIdleGraceMs);
}

void Connection::abort() {
    close();
}

void Connection::start_linger() {
    // Half-close, then read and drop what the client still sends, so our response is not lost to a reset.
    lingering_ = true;
    transport_.shutdown_write().ignore_error();
    events_ = EPOLLIN | EPOLLRDHUP;
    worker_.loop().modify(fd_.get(), events_).ignore_error();
    timer_reason_ = TimerReason::kLinger;
    worker_.loop().schedule_after(timer_, std::int64_t{kLingerMs} * base::kNanosPerMilli);
}

void Connection::linger_read() {
    std::span<char> space = worker_.read_scratch();
    base::Result<std::size_t> r = transport_.read_raw(space);
    if (r.is_ok() && *r > 0) {
        linger_bytes_ += *r;
        if (linger_bytes_ < kLingerMaxBytes) return;
    } else if (!r.is_ok() && r.status().is_unavailable()) {
        return;
    }
    close();
}

void Connection::close() {
    if (closed_) return;
    closed_ = true;
    timer_.cancel();
    transport_.unregister(worker_.loop());  // a stream's output already taken is still sent
    if (h2_) h2_->detach_all();
    transport_.close_notify();
    fd_.reset();
    for (Slot& s : slots_) {
        if (!s.complete) {
            worker_.metrics().in_flight.dec();
            // A response cut mid-way (client gone, write error, drain deadline) is still logged and counted.
            if (s.status != 0) worker_.observe(s.record, s.status, written_bytes(s), peer_, true);
        }
        if (!s.pending) continue;
        s.pending->connection = nullptr;
        s.pending->cancel();
        s.pending->handler_timer.cancel();
    }
    slots_.clear();
    if (ws_) ws_->on_transport_closed();
    worker_.retire(this);
}

}  // namespace slipstream::server
