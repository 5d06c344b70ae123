// H2Session: session set-up from ServerOptions, output, and asynchronous answers as HTTP/2 frames.
#include "server/h2/h2_session.h"

#include <unistd.h>

#include <cerrno>
#include <optional>
#include <span>
#include <vector>

#include "base/log.h"
#include "server/core/file_body.h"
#include "server/encode/response_encoder.h"

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

// A file region read 16 KiB (one DATA frame) at a time as the peer's window allows, never whole into memory.
class FileSource final : public h2::BodySource {
  public:
    explicit FileSource(OpenedFile file) : file_(std::move(file)) {}

    base::Result<std::size_t> read(std::span<char> buf) override {
        for (;;) {
            ssize_t n = ::pread(file_.fd.get(), buf.data(), buf.size(), static_cast<off_t>(file_.offset));
            if (n > 0) {
                file_.offset += static_cast<std::uint64_t>(n);
                return static_cast<std::size_t>(n);
            }
            if (n == 0) return base::Status::io_error("the file shrank while it was sent");
            if (errno != EINTR) return base::Status::io_error("the file could not be read");
        }
    }

  private:
    OpenedFile file_;
};

}  // namespace

H2Session::H2Session(Worker& worker, Connection& connection)
    : worker_(worker), connection_(connection), peer_(connection.peer()), stall_timer_([this] { on_stall_check(); }) {}

base::Result<std::unique_ptr<H2Session>> H2Session::create(Worker& worker, Connection& connection) {
    std::unique_ptr<H2Session> s(new H2Session(worker, connection));
    auto session = h2::ServerSession::create(session_config(worker.options()), *s);
    if (!session.is_ok()) return session.status();
    s->session_ = std::move(session).value();
    return s;
}

ProtocolSession* H2Session::start(Connection& connection, std::string_view first_bytes) {
    auto session = create(connection.worker(), connection);
    if (!session.is_ok()) {
        base::log_message(base::LogLevel::kError, session.status().to_string());
        connection.close();
        return nullptr;
    }
    H2Session& h2 = *session.value();
    connection.switch_to(std::move(session).value());
    connection.stop_timer();
    if (!first_bytes.empty()) {
        base::Status s = h2.receive(first_bytes);
        if (!s.is_ok()) connection.set_reading(false);
    }
    h2.pump();
    return &h2;
}

H2Session::~H2Session() {
    detach_all();
    if (session_) count_events();
}

base::Status H2Session::upgrade(std::string_view http2_settings, const http::h1::RequestHead& head,
                                std::string_view body) {
    std::vector<h2::HeaderField> fields;
    fields.reserve(head.headers.size());
    for (const http::h1::Header& h : head.headers)
        fields.push_back({h.name, h.value});
    h2::RequestHead request;
    request.method = head.method;
    request.scheme = "http";
    request.authority = head.host;
    request.path = head.target;
    request.headers = fields;
    request.body = body;
    base::Status st = session_->upgrade(http2_settings, request);
    count_events();
    return st;
}

base::Status H2Session::receive(std::string_view bytes) {
    session_->set_held_streams(held_->running());  // reset streams' handlers that finished since free their place
    base::Status st = session_->receive(bytes, worker_.loop().now());
    count_events();
    return st;
}

std::size_t H2Session::pull(OutputQueue& out, std::size_t limit) {
    std::size_t room = limit > out.size() ? limit - out.size() : 0;
    if (room == 0) return 0;
    frames_.clear();
    std::size_t n = session_->send(frames_, room);
    if (n > 0) out.append(std::move(frames_));
    if (session_->stats().events != counted_.events) count_events();  // RST_STREAM and GOAWAY sent
    if (!stall_timer_.scheduled() && session_->active_streams() > 0) {
        worker_.loop().schedule_after(stall_timer_,
                                      std::int64_t{worker_.options().write_timeout_ms} * base::kNanosPerMilli);
    }
    return n;
}

void H2Session::on_stall_check() {
    if (std::size_t reset = session_->reset_stalled(); reset > 0) {
        worker_.metrics().timeouts.with({"write"}).inc(reset);
        output_ready();  // the RST_STREAM frames go out; the streams close (and their buffers go) with them
    }
    if (session_->active_streams() > 0) {
        worker_.loop().schedule_after(stall_timer_,
                                      std::int64_t{worker_.options().write_timeout_ms} * base::kNanosPerMilli);
    }
}

std::pair<int, std::size_t> H2Session::answer(h2::StreamId id, Response&& r, const H2Context& ctx) {
    r.own_body();  // the stream keeps its body until framed: a static body (WebSocket refusals too) is copied
    // A file body is opened now (a 500 when it cannot be) and read as the peer's window allows (FileSource).
    std::optional<OpenedFile> file;
    if (r.file_body) {
        base::Result<OpenedFile> opened = open_file_body(*r.file_body);
        if (opened.is_ok()) {
            file = std::move(opened).value();
        } else {
            r = problem_response({500, "the response file could not be read"});
        }
    }
    H2Response& head = head_;  // reused: its field list keeps its capacity
    if (!head.build(r, ctx, true, file ? std::optional<std::uint64_t>(file->length) : std::nullopt)) {
        file.reset();
        r = problem_response({500, "the handler produced an invalid response"});
        (void)head.build(r, ctx, true);
    }
    int status = r.status;
    bool bodiless = ctx.head_only || h2_bodiless_status(status);
    if (file && !bodiless && file->length > 0) {
        std::uint64_t length = file->length;
        session_->respond(id, status, head.fields(), std::make_unique<FileSource>(std::move(*file)), length)
            .ignore_error();  // the stream may be gone
        return {status, head.head_bytes() + static_cast<std::size_t>(length)};
    }
    std::string body = bodiless || file ? std::string() : std::move(r.body);
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
    return H2Context{worker_.date(), worker_.options().server_header,
                     worker_.response_request_id(a.pending->request.request_id), a.head_only};
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
    AsyncStream& a = it->second;
    RequestPipeline(worker_).finish_response(pending, response);  // compression
    auto [status, bytes] = answer(a.id, std::move(response), context_for(a));
    worker_.observe(a.record, status, bytes, peer_);
    finish(it);
    output_ready();
}

void H2Session::deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head) {
    auto it = async_.find(&pending);
    if (it == async_.end() || it->second.streaming) return;
    AsyncStream& a = it->second;
    // Compression and SSE heartbeats, as on HTTP/1.1; 1xx is never a final response in HTTP/2.
    pending.stream.set_high_water(worker_.options().stream_high_water_bytes);
    RequestPipeline(worker_).begin_stream(pending, head, response_valid(head) && head.status >= 200);
    H2Context ctx = context_for(a);
    H2Response fields;
    if (!fields.build(head, ctx, false)) {
        (void)pending.stream.finish(true);
        auto [status, bytes] = answer(a.id, problem_response({500, "the handler produced an invalid response"}), ctx);
        worker_.observe(a.record, status, bytes, peer_);
        finish(it);
        output_ready();
        return;
    }
    a.streaming = true;
    a.status = head.status;
    a.head_bytes = fields.head_bytes();
    a.response_bytes += fields.head_bytes();
    session_->start_stream(a.id, head.status, fields.fields()).ignore_error();
    if (a.head_only) session_->end(a.id).ignore_error();  // HEAD: the head is the whole answer
    output_ready();
    if (draining_ && pending.stream.event_stream_active()) end_event_stream(pending);  // began during the drain
}

void H2Session::deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk) {
    auto it = async_.find(&pending);
    if (it == async_.end() || !it->second.streaming || it->second.head_only) return;
    chunk = pending.stream.transform(std::move(chunk));  // compressed and flushed when the stream is
    it->second.response_bytes += chunk.size();
    session_->write(it->second.id, std::move(chunk)).ignore_error();
    set_backlog(it->second);  // before the producer's posted count drops (see Responder::write)
    output_ready();
}

void H2Session::deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted) {
    std::string tail = pending.stream.finish(aborted);  // the encoder's last bytes; stops heartbeats
    auto it = async_.find(&pending);
    if (it == async_.end()) return;
    AsyncStream& a = it->second;
    if (aborted) {
        observe_cut(a);
        session_->reset(a.id, h2::ErrorCode::kInternalError);  // a truncated body must not look complete
        finish(it);
        output_ready();
        return;
    }
    if (!a.head_only) {
        a.response_bytes += tail.size();
        if (!tail.empty()) session_->write(a.id, std::move(tail)).ignore_error();
        session_->end(a.id).ignore_error();
    }
    worker_.observe(a.record, a.status, a.response_bytes, peer_);
    finish(it);
    output_ready();
}

void H2Session::on_handler_timeout(slipstream::detail::PendingResponse& pending) {
    auto it = async_.find(&pending);
    if (it == async_.end()) return;
    AsyncStream& a = it->second;
    pending.cancel();
    worker_.metrics().timeouts.with({"handler"}).inc();
    if (pending.answered.exchange(true)) {
        (void)pending.stream.finish(true);
        if (a.streaming) {
            observe_cut(a);
        } else {
            worker_.observe(a.record, 504, a.response_bytes, peer_);
        }
        session_->reset(a.id, h2::ErrorCode::kInternalError);  // a stream already started: cut it
    } else {
        Response timeout = problem_response({504, "the handler did not answer in time"});
        RequestPipeline(worker_).add_cors_fields(pending.request.headers, timeout);
        answer_and_observe(a.id, std::move(timeout), context_for(a), a.record);
    }
    finish(it);
    output_ready();
}

void H2Session::on_stream_reset(h2::StreamId id) {
    if (auto ws = websockets_.find(id); ws != websockets_.end()) {
        std::unique_ptr<H2WebSocketStream> stream = std::move(ws->second);
        websockets_.erase(ws);
        stream->on_closed();  // client RST_STREAM, connection gone: 1006 to the handler
        return;
    }
    auto s = by_stream_.find(id);
    if (s == by_stream_.end()) return;
    auto it = async_.find(s->second);
    if (it->second.streaming) observe_cut(it->second);  // client RST_STREAM, connection gone, drain deadline
    std::shared_ptr<slipstream::detail::PendingResponse> keep = it->second.pending.shared();
    slipstream::detail::PendingResponse& p = *keep;
    it->second.pending.cancel();  // late answers are dropped; the producer hears of it
    if (!p.ended.load()) {
        // The handler may run on until it lets go of its Responder: until then the stream still counts toward
        // this connection's SETTINGS_MAX_CONCURRENT_STREAMS (rapid reset, CVE-2023-44487).
        p.held = HandlerCount::enter(held_);
        session_->set_held_streams(held_->running());
    }
    finish(it);
}

void H2Session::detach_all() {
    while (!async_.empty())
        on_stream_reset(async_.begin()->second.id);
    while (!websockets_.empty())
        on_stream_reset(websockets_.begin()->first);
}

void H2Session::observe_cut(const AsyncStream& a) {
    std::size_t bytes = a.head_only ? a.head_bytes : a.head_bytes + session_->body_bytes_sent(a.id);
    worker_.observe(a.record, a.status, bytes, peer_, true);
}

// ---- drain and flow control ----

void H2Session::begin_drain() {
    draining_ = true;
    // Event streams never end by themselves: end them cleanly so their clients reconnect elsewhere.
    std::vector<std::shared_ptr<slipstream::detail::PendingResponse>> streams;
    for (const auto& [raw, a] : async_) {
        if (a.streaming && a.pending->stream.event_stream_active()) streams.push_back(a.pending.shared());
    }
    for (const auto& p : streams)
        end_event_stream(*p);
    for (const auto& [id, ws] : websockets_)
        ws->begin_drain();  // close 1001, as on HTTP/1.1; the stream ends with the close handshake
    session_->shutdown();   // GOAWAY: the other streams in progress finish (or the deadline cuts them)
    pump();
}

void H2Session::end_event_stream(slipstream::detail::PendingResponse& pending) {
    auto it = async_.find(&pending);
    if (it == async_.end() || !it->second.streaming) return;
    std::shared_ptr<slipstream::detail::PendingResponse> keep = it->second.pending.shared();  // finish() lets go
    keep->ended.store(true);  // the producer's later write() and end() are no-ops
    deliver_stream_end(*keep, false);
    keep->cancel();
}

void H2Session::set_backlog(const AsyncStream& a) {
    a.pending->stream.set_backlog(session_->queued_bytes(a.id) + unsent_output_);
}

void H2Session::update_backlogs(std::size_t unsent_output) {
    unsent_output_ = unsent_output;
    for (const auto& [raw, a] : async_) {
        if (a.streaming) set_backlog(a);
    }
    for (const auto& [id, ws] : websockets_)
        ws->after_output(unsent_output);  // on_drain, and input held back for a backlog
}

}  // namespace slipstream::server
