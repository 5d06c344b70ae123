// H1Session: reading, parsing and dispatching HTTP/1.1 requests; its timers, drain and close.
#include "server/h1/h1_session.h"

#include <algorithm>
#include <vector>

#include "http/h1/parser.h"
#include "server/conn/request_pipeline.h"
#include "server/encode/method_map.h"

namespace slipstream::server {

namespace h1 = http::h1;

namespace {
constexpr std::uint32_t kDrainIdleGraceMs = 100;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
}  // namespace

H1Session::H1Session(Connection& connection) : conn_(connection), worker_(connection.worker()) {}

H1Session::~H1Session() {
    for (Slot& s : slots_) {
        if (s.pending) s.pending.cancel();
    }
}

bool H1Session::idle() const {
    return phase_ == Phase::kHead && conn_.input().empty() && slots_.empty() && conn_.output().empty();
}

// ---- reading ----

void H1Session::on_read(std::string_view data, bool from_scratch) {
    process(data, from_scratch);
    if (upgraded_) [[unlikely]] {
        hand_over();
        return;
    }
    if (conn_.closed()) return;
    conn_.flush();
    if (conn_.closed()) return;
    after_output(true);  // reading may have paused for output that has now drained; re-arms the timer
    conn_.read_buffered_soon();
}

void H1Session::hand_over() {
    ProtocolSession& next = *upgraded_;
    upgraded_ = nullptr;
    if (conn_.closed()) return;
    if (!conn_.input().empty()) {
        next.on_read(conn_.input().view(), false);
        return;
    }
    conn_.flush();
    if (conn_.closed()) return;
    next.after_output();
    conn_.read_buffered_soon();
}

void H1Session::process(std::string_view data, bool from_scratch) {
    if (requests_ == 0 && phase_ == Phase::kHead && start_h2c(data, from_scratch)) return;
    base::Buffer& in = conn_.input();
    const std::size_t max_pipelined = worker_.options().max_pipelined;
    const std::size_t output_limit = worker_.options().max_output_buffer;
    std::size_t off = 0;
    while (!conn_.closed() && conn_.reading() && !conn_.closing() && off < data.size()) {
        // An empty deque's size() is still a computation: the keep-alive case (no slot) skips it.
        const std::size_t pending = slots_.empty() ? 0 : slots_.size();
        if (pending >= max_pipelined || conn_.output().size() >= output_limit) {
            conn_.set_reading(false);  // resumes when responses drained
            break;
        }
        std::size_t n = process_one(data.substr(off));
        if (n == 0) break;
        off += n;
        if (upgraded_) [[unlikely]]
            break;  // the rest is the new protocol's (hand_over)
    }
    if (conn_.closed()) return;
    if (from_scratch) {
        if (off < data.size() && !conn_.closing()) in.append(data.substr(off));
    } else {
        in.consume(off);
    }
}

std::size_t H1Session::process_one(std::string_view data) {
    if (phase_ == Phase::kBody) {
        std::size_t n = read_chunked_body(data);
        BodyProgress& body = conn_.body_progress();
        body.bytes += n;
        if (n > 0) body.last = worker_.loop().now();
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

std::size_t H1Session::start_body(std::string_view data, std::size_t head_len) {
    head_bytes_.assign(data.substr(0, head_len));
    h1::RequestHead head;
    auto headers = worker_.header_scratch();
    (void)h1::parse_request(head_bytes_, worker_.limits(), &head, headers.data(), headers.size());
    body_.clear();
    phase_ = Phase::kBody;
    BodyProgress& body = conn_.body_progress();
    body.start = body.last = worker_.loop().now();
    body.bytes = 0;
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

std::size_t H1Session::read_chunked_body(std::string_view data) {
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

void H1Session::on_eof() {
    conn_.set_eof();
    conn_.set_reading(false);
    // A client that closes during a streamed response has left (it would read to the end otherwise): cut
    // the stream now, so its producer hears of it at once rather than at a failed write. So has one that
    // closes while a handler still owes its answer (as Go's net/http and nginx read it; a client that only
    // half-closed loses that answer): its handler hears on_cancel now, and stops its database query, rather
    // than finishing the work for nobody.
    for (const Slot& s : slots_) {
        if (s.pending && (s.pending->stream.active() || !s.complete)) {
            conn_.close();
            return;
        }
    }
    if (slots_.empty() && conn_.output().empty()) {
        conn_.close();
        return;
    }
    conn_.set_closing();  // answer what was asked, then close
    conn_.flush();
}

// ---- dispatch ----

void H1Session::dispatch(const h1::RequestHead& head, std::string_view body) {
    ++requests_;
    if (head.upgrade && upgrade_h2c(head, body)) return;  // "Upgrade: h2c" (h2c_upgrade.cpp)
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
                    .peer = &conn_.peer(),
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

void H1Session::answer_now(Response&& response, const EncodeContext& ctx, const RequestRecord& record) {
    OutputQueue& out = output_for_next(!ctx.keep_alive);
    std::size_t before = out.size();
    int status = response.status;
    if (!encode_response(std::move(response), ctx, out)) status = 500;
    worker_.observe(record, status, out.size() - before, conn_.peer());
}

void H1Session::answer_error(const h1::ParseError& error) {
    worker_.metrics().parse_errors.with({error.reason}).inc();
    EncodeContext ctx{h1::Version::kHttp11, false, false, worker_.date(), worker_.options().server_header, {}};
    OutputQueue& out = output_for_next(true);
    std::size_t before = out.size();
    encode_error({error.http_status, error.reason}, ctx, out);
    RequestRecord record;
    record.start = base::mono_now();
    worker_.observe(record, error.http_status, out.size() - before, conn_.peer());
    phase_ = Phase::kClosing;
    conn_.input().clear();
}

// ---- output drained ----

// Resumes reading once the pipeline drained, and serves requests that were waiting in the input. With `progressed`
// (from on_read) every path that leaves the connection open refreshes the timer exactly once.
void H1Session::after_output(bool progressed) {
    update_stream_backlogs();  // flow control: producers paused on this connection may resume
    if (conn_.closed()) return;
    if (conn_.closing() || conn_.eof()) {
        if (progressed) conn_.refresh_timer(true);
        return;
    }
    // Draining and idle after a keep-alive answer (one whose head left before the drain began): the idle
    // grace below applies, as to any idle connection at the drain start, rather than a close that would race
    // with the client's next request.
    // Each round serves buffered requests until reading pauses again; it repeats only while the socket
    // takes the output at once, and every round consumes buffered input, so it ends.
    base::Buffer& in = conn_.input();
    while (!conn_.reading() && !conn_.closing() && slots_.size() < worker_.options().max_pipelined &&
           conn_.output().size() < worker_.options().max_output_buffer) {
        conn_.set_reading(true);
        if (in.empty()) break;
        process(in.view(), false);
        if (upgraded_) [[unlikely]] {
            hand_over();
            return;
        }
        if (conn_.closed()) return;
        conn_.flush();
        if (conn_.closed()) return;
    }
    if (!conn_.closed()) refresh_timer(progressed);
}

// ---- timers ----

void H1Session::refresh_timer(bool progressed) {
    if (conn_.refresh_write_timer(progressed)) return;
    const ServerOptions& o = worker_.options();
    const TimerReason reason = conn_.timer_reason();
    if (phase_ == Phase::kBody) {
        const bool armed = reason == TimerReason::kBody || reason == TimerReason::kBodyRate;
        if (!armed || progressed) conn_.arm_transfer(true);
    } else if (!conn_.input().empty()) {
        if (reason != TimerReason::kHead) conn_.arm(TimerReason::kHead, o.header_timeout_ms);
    } else if (slots_.empty()) {
        conn_.arm(TimerReason::kIdle, conn_.draining() ? kDrainIdleGraceMs : o.keepalive_timeout_ms);
    } else {
        conn_.stop_timer();  // waiting for a handler: its own timer runs
    }
}

void H1Session::on_timer(TimerReason reason) {
    if (reason == TimerReason::kIdle || !slots_.empty() || !conn_.output().empty()) {
        conn_.close();
        return;
    }
    // The head or the body did not arrive in time.
    OutputQueue& out = conn_.output();
    EncodeContext ctx{h1::Version::kHttp11, false, false, worker_.date(), worker_.options().server_header, {}};
    encode_error({408, "the request was not received in time"}, ctx, out);
    RequestRecord record;
    record.start = base::mono_now();
    worker_.observe(record, 408, out.size(), conn_.peer());
    conn_.set_closing();
    conn_.set_eof();  // no linger: the client is too slow already
    conn_.set_reading(false);
    conn_.flush();
    if (!conn_.closed() && !out.empty()) conn_.close();  // the client is not reading either
}

// ---- closing ----

void H1Session::begin_drain() {
    // Event streams never end by themselves: end them cleanly so their clients reconnect elsewhere.
    std::vector<std::shared_ptr<slipstream::detail::PendingResponse>> streams;
    for (const Slot& s : slots_) {
        if (s.pending && !s.complete && s.pending->stream.event_stream_active()) streams.push_back(s.pending.shared());
    }
    for (const auto& p : streams)
        end_event_stream(*p);
    if (conn_.closed() || !idle()) return;  // busy connections close after their current response
    // An idle keep-alive connection gets a short grace: a request already on its way is still answered
    // (with Connection: close) instead of being lost to a close racing with the client's send.
    conn_.arm(TimerReason::kIdle, kDrainIdleGraceMs);
}

void H1Session::on_closed() {
    for (Slot& s : slots_) {
        if (!s.complete) {
            worker_.metrics().in_flight.dec();
            // A response cut mid-way (client gone, write error, drain deadline) is still logged and counted.
            if (s.status != 0) worker_.observe(s.record, s.status, written_bytes(s), conn_.peer(), true);
        }
        if (s.pending) s.pending.cancel();
    }
    slots_.clear();
}

}  // namespace slipstream::server
