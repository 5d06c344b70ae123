// H2WebSocketStream: WebSocket frames through one HTTP/2 stream, its end, and its receive-window backpressure.
#include "server/ws/h2_websocket_stream.h"

#include <algorithm>
#include <span>
#include <utility>

#include "server/conn/worker.h"

namespace slipstream::server {

namespace h2 = http::h2;

H2WebSocketStream::H2WebSocketStream(h2::ServerSession& session, h2::StreamId id, Worker& worker,
                                     std::function<void()> output_ready)
    : session_(session), id_(id), output_ready_(std::move(output_ready)) {
    const ServerOptions& o = worker.options();
    // The HTTP/1.1 WebSocket's output limit (Connection::output_limit), per stream here.
    limit_ = std::max<std::size_t>(std::min(o.max_output_buffer, o.ws_max_send_queue_bytes / 2), 1);
}

H2WebSocketStream::~H2WebSocketStream() = default;

WebSocketSession& H2WebSocketStream::open(Worker& worker, std::shared_ptr<const WebSocketHandler> handler,
                                          std::shared_ptr<slipstream::detail::WebSocketChannel> channel,
                                          const std::optional<http::ws::DeflateConfig>& deflate) {
    channel_ = channel;
    WebSocketTransport& transport = *this;  // a private base: convert here, where it is accessible
    ws_ = std::make_unique<WebSocketSession>(transport, worker, std::move(handler), std::move(channel), deflate);
    return *ws_;
}

// ---- input ----

void H2WebSocketStream::on_data(std::string_view data) {
    held_ += data.size();
    if (!closed_ && ws_) ws_->on_bytes(data);  // consumes every byte (the message limits bound what it keeps)
    release_input();
}

void H2WebSocketStream::release_input() {
    if (held_ == 0 || (!ended_ && backlog() >= limit_)) return;
    session_.consume(id_, held_);  // WINDOW_UPDATE: the client may send more
    held_ = 0;
    output_ready_();
}

void H2WebSocketStream::on_end() {
    if (closed_) return;
    if (ws_) ws_->on_transport_closed();  // 1006 unless the close handshake already finished
    finish();
}

void H2WebSocketStream::on_closed() {
    if (closed_) return;
    closed_ = true;
    ended_ = true;
    out_.clear();
    if (ws_) ws_->on_transport_closed();
}

void H2WebSocketStream::begin_drain() {
    if (!closed_ && ws_) ws_->begin_drain();
}

void H2WebSocketStream::after_output(std::size_t unsent_output) {
    unsent_output_ = unsent_output;
    if (closed_) return;
    if (ws_) ws_->after_output(backlog());
    release_input();
}

std::size_t H2WebSocketStream::backlog() const {
    return session_.queued_bytes(id_) + out_.size() + unsent_output_;
}

// ---- output ----

void H2WebSocketStream::move_output() {
    if (ended_) {
        out_.clear();
        return;
    }
    if (!out_.empty()) {
        struct Sink {
            h2::ServerSession& session;
            h2::StreamId id;
        } sink{session_, id_};
        auto write = [](void* context, std::span<const iovec> pieces) -> base::Result<std::size_t> {
            auto& s = *static_cast<Sink*>(context);
            std::size_t n = 0;
            for (const iovec& v : pieces) {
                s.session.write(s.id, {static_cast<const char*>(v.iov_base), v.iov_len}).ignore_error();
                n += v.iov_len;
            }
            return n;
        };
        // Frames are memory pieces only, so the file buffer is never used.
        char unused[1];
        if (!out_.flush_to(write, &sink, std::span<char>(unused, 0)).is_ok()) out_.clear();
    }
    if (channel_) channel_->output.store(backlog());
}

void H2WebSocketStream::ws_flush_soon() {
    move_output();
    output_ready_();
}

void H2WebSocketStream::finish() {
    if (ended_) return;
    move_output();
    ended_ = true;
    // END_STREAM after the frames; a stream whose answer never started (a pending manual accept) is reset.
    if (!session_.end(id_).is_ok()) session_.reset(id_, h2::ErrorCode::kCancel);
    output_ready_();
}

void H2WebSocketStream::ws_close_after_output() {
    finish();
}

void H2WebSocketStream::ws_abort() {
    if (ended_) return;
    ended_ = true;
    out_.clear();
    session_.reset(id_, h2::ErrorCode::kCancel);
    output_ready_();
}

}  // namespace slipstream::server
