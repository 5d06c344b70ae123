// H2Session: session set-up from ServerOptions, output, and asynchronous answers as HTTP/2 frames.
#include "server/h2_session.h"

#include "server/connection.h"
#include "server/response_encoder.h"

namespace slipstream::server {

namespace h2 = http::h2;

namespace {

h2::SessionConfig session_config(const ServerOptions& o) {
    h2::SessionConfig c;
    c.max_concurrent_streams = o.h2_max_concurrent_streams;
    c.initial_window_size = o.h2_initial_window_size;
    c.connection_window_size = o.h2_connection_window_size;
    c.max_header_list_size = o.h2_max_header_list_size;
    c.max_body_bytes = o.max_body_bytes;
    c.reset_burst = o.h2_reset_burst;
    c.reset_rate = o.h2_reset_rate;
    c.control_burst = o.h2_control_burst;
    c.control_rate = o.h2_control_rate;
    c.max_continuations = o.h2_max_continuations;
    return c;
}

}  // namespace

Response problem_response(const HttpError& error, std::string_view allow) {
    Response r(error.status);
    r.body = problem_body(error);
    r.content_type = std::string(kProblemContentType);
    if (!allow.empty()) r.headers.emplace_back("Allow", std::string(allow));
    return r;
}

H2Session::H2Session(Worker& worker, Connection& connection, const net::SocketAddress& peer,
                     std::function<void()> output_ready)
    : worker_(worker), connection_(connection), peer_(peer), output_ready_(std::move(output_ready)) {}

base::Result<std::unique_ptr<H2Session>> H2Session::create(Worker& worker, Connection& connection,
                                                           const net::SocketAddress& peer,
                                                           std::function<void()> output_ready) {
    std::unique_ptr<H2Session> s(new H2Session(worker, connection, peer, std::move(output_ready)));
    auto session = h2::ServerSession::create(session_config(worker.options()), *s);
    if (!session.is_ok()) return session.status();
    s->session_ = std::move(session).value();
    return s;
}

H2Session::~H2Session() {
    detach_all();
}

base::Status H2Session::receive(std::string_view bytes) {
    return session_->receive(bytes, worker_.loop().now());
}

std::size_t H2Session::pull(OutputQueue& out, std::size_t limit) {
    std::size_t room = limit > out.size() ? limit - out.size() : 0;
    if (room == 0) return 0;
    frames_.clear();
    std::size_t n = session_->send(frames_, room);
    if (n > 0) out.append(std::move(frames_));
    return n;
}

std::pair<int, std::size_t> H2Session::answer(h2::StreamId id, Response&& r, const H2Context& ctx) {
    H2Response head;
    if (!head.build(r, ctx, true)) {
        r = problem_response({500, "the handler produced an invalid response"});
        (void)head.build(r, ctx, true);
    }
    int status = r.status;
    std::string body = ctx.head_only || h2_bodiless_status(status) ? std::string() : std::move(r.body);
    std::size_t bytes = head.head_bytes() + body.size();
    session_->respond(id, status, head.fields(), std::move(body)).ignore_error();  // the stream may be gone
    return {status, bytes};
}

void H2Session::answer_and_observe(h2::StreamId id, Response&& response, const H2Context& ctx,
                                   const RequestRecord& record) {
    auto [status, bytes] = answer(id, std::move(response), ctx);
    worker_.observe(record, status, bytes, peer_);
}

H2Context H2Session::context_for(const AsyncStream& a) {
    return H2Context{worker_.date(), worker_.options().server_header, a.pending->request.request_id, a.head_only};
}

void H2Session::finish(AsyncMap::iterator it) {
    worker_.metrics().in_flight.dec();
    by_stream_.erase(it->second.id);
    async_.erase(it);
}

// ---- asynchronous answers (loop thread) ----

void H2Session::deliver_response(slipstream::detail::PendingResponse& pending, Response&& response) {
    auto it = async_.find(&pending);
    if (it == async_.end() || it->second.streaming) return;
    pending.handler_timer.cancel();
    AsyncStream& a = it->second;
    worker_.content_coding().compress_response(pending.request.headers, response);
    auto [status, bytes] = answer(a.id, std::move(response), context_for(a));
    worker_.observe(a.record, status, bytes, peer_);
    finish(it);
    output_ready_();
}

void H2Session::deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head) {
    auto it = async_.find(&pending);
    if (it == async_.end() || it->second.streaming) return;
    pending.handler_timer.cancel();
    AsyncStream& a = it->second;
    bool valid = response_valid(head) && head.status >= 200;
    pending.stream.begin(pending, head, valid, worker_.content_coding(), worker_.loop(),
                         worker_.options().sse_heartbeat_ms);  // compression, SSE heartbeats
    H2Context ctx = context_for(a);
    H2Response fields;
    if (!fields.build(head, ctx, false)) {
        (void)pending.stream.finish(true);
        auto [status, bytes] = answer(a.id, problem_response({500, "the handler produced an invalid response"}), ctx);
        worker_.observe(a.record, status, bytes, peer_);
        finish(it);
        output_ready_();
        return;
    }
    a.streaming = true;
    a.status = head.status;
    a.response_bytes += fields.head_bytes();
    session_->start_stream(a.id, head.status, fields.fields()).ignore_error();
    if (a.head_only) session_->end(a.id).ignore_error();  // HEAD: the head is the whole answer
    output_ready_();
}

void H2Session::deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk) {
    auto it = async_.find(&pending);
    if (it == async_.end() || !it->second.streaming || it->second.head_only) return;
    chunk = pending.stream.transform(std::move(chunk));  // compressed and flushed when the stream is
    it->second.response_bytes += chunk.size();
    session_->write(it->second.id, std::move(chunk)).ignore_error();
    output_ready_();
}

void H2Session::deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted) {
    std::string tail = pending.stream.finish(aborted);  // the encoder's last bytes; stops heartbeats
    auto it = async_.find(&pending);
    if (it == async_.end()) return;
    AsyncStream& a = it->second;
    if (aborted) {
        session_->reset(a.id, h2::ErrorCode::kInternalError);  // a truncated body must not look complete
    } else if (!a.head_only) {
        a.response_bytes += tail.size();
        if (!tail.empty()) session_->write(a.id, std::move(tail)).ignore_error();
        session_->end(a.id).ignore_error();
    }
    worker_.observe(a.record, a.status, a.response_bytes, peer_);
    finish(it);
    output_ready_();
}

void H2Session::on_handler_timeout(slipstream::detail::PendingResponse& pending) {
    auto it = async_.find(&pending);
    if (it == async_.end()) return;
    AsyncStream& a = it->second;
    pending.cancel();
    worker_.metrics().timeouts.with({"handler"}).inc();
    if (pending.answered.exchange(true)) {
        (void)pending.stream.finish(true);
        session_->reset(a.id, h2::ErrorCode::kInternalError);  // a stream already started: cut it
        worker_.observe(a.record, a.status ? a.status : 504, a.response_bytes, peer_);
    } else {
        answer_and_observe(a.id, problem_response({504, "the handler did not answer in time"}), context_for(a),
                           a.record);
    }
    finish(it);
    output_ready_();
}

void H2Session::on_stream_reset(h2::StreamId id) {
    auto s = by_stream_.find(id);
    if (s == by_stream_.end()) return;
    auto it = async_.find(s->second);
    slipstream::detail::PendingResponse& p = *it->second.pending;
    p.connection = nullptr;
    p.handler_timer.cancel();
    p.cancel();
    finish(it);
}

void H2Session::detach_all() {
    while (!async_.empty())
        on_stream_reset(async_.begin()->second.id);
}

}  // namespace slipstream::server
