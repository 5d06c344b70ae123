// WebSocketSession: message dispatch, frame writing, the close handshake and keep-alive pings.
#include "server/ws/websocket_session.h"

#include <exception>
#include <string>

#include "base/log.h"
#include "http/ws/close_code.h"
#include "http/ws/frame_writer.h"
#include "server/conn/worker.h"

namespace slipstream::server {

namespace ws = http::ws;

namespace {
// Smaller messages are sent as they are: deflate would save little and costs a compressor per connection.
constexpr std::size_t kMinCompressBytes = 64;

ws::MessageReaderOptions reader_options(const ServerOptions& o, const std::optional<ws::DeflateConfig>& deflate) {
    ws::MessageReaderOptions r;
    r.expect_masked = true;
    r.max_message_bytes = o.ws_max_message_bytes;
    r.max_frame_bytes = o.ws_max_frame_bytes;
    r.deflate = deflate.has_value();
    r.reset_inflate_each_message = deflate && deflate->client_no_context_takeover;
    return r;
}
}  // namespace

WebSocketSession::WebSocketSession(WebSocketTransport& transport, Worker& worker,
                                   std::shared_ptr<const WebSocketHandler> handler,
                                   std::shared_ptr<slipstream::detail::WebSocketChannel> channel,
                                   const std::optional<ws::DeflateConfig>& deflate)
    : transport_(transport),
      worker_(worker),
      handler_(std::move(handler)),
      channel_(std::move(channel)),
      handle_(channel_),
      reader_(reader_options(worker.options(), deflate)),
      deflate_(deflate),
      ping_timer_([this] { on_ping_timer(); }),
      close_timer_([this] { on_close_timer(); }) {
    channel_->session = this;
}

WebSocketSession::~WebSocketSession() {
    channel_->session = nullptr;
    channel_->open.store(false);
    if (counted_) worker_.metrics().websocket.open.dec();
}

void WebSocketSession::count_upgrade() {
    counted_ = true;
    worker_.metrics().websocket.upgrades.inc();
    worker_.metrics().websocket.open.inc();
}

template <typename Fn>
void WebSocketSession::guarded(const char* what, Fn&& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("websocket ") + what + " threw: " + e.what());
        close_now(ws::kCloseInternalError, "internal error");
    } catch (...) {
        base::log_message(base::LogLevel::kError, std::string("websocket ") + what + " threw a non-exception");
        close_now(ws::kCloseInternalError, "internal error");
    }
}

void WebSocketSession::arm_keepalive() {
    const ServerOptions& o = worker_.options();
    if (o.ws_ping_interval_ms > 0) {
        worker_.loop().schedule_after(ping_timer_, std::int64_t{o.ws_ping_interval_ms} * base::kNanosPerMilli);
    }
}

void WebSocketSession::start() {
    count_upgrade();
    arm_keepalive();
    if (handler_->on_open) guarded("on_open", [&] { handler_->on_open(handle_); });
}

// ---- manual accept ----

void WebSocketSession::start_pending(WebSocketAnswer answer) {
    state_ = State::kPending;
    answer_ = std::move(answer);
    channel_->handshake.store(slipstream::detail::Handshake::kPending);
    // The close timer doubles as the deadline of the handler's answer.
    worker_.loop().schedule_after(close_timer_,
                                  std::int64_t{worker_.options().handler_timeout_ms} * base::kNanosPerMilli);
    if (handler_->on_open) guarded("on_open", [&] { handler_->on_open(handle_); });
}

void WebSocketSession::accept_now(std::string_view subprotocol, const WebSocketAnswerHeaders& headers) {
    if (state_ != State::kPending) return;
    close_timer_.cancel();
    channel_->subprotocol = std::string(subprotocol);
    state_ = State::kOpen;
    WebSocketAnswer answer = std::move(answer_);
    answer.accept(subprotocol, headers);
    count_upgrade();
    arm_keepalive();
    if (!pending_input_.empty()) {
        std::string held = std::move(pending_input_);
        pending_input_.clear();
        on_bytes(held);
    }
}

void WebSocketSession::refuse_now(Response&& refusal, std::uint16_t code, std::string_view reason) {
    if (state_ != State::kPending) return;
    close_timer_.cancel();
    state_ = State::kClosed;
    channel_->open.store(false);
    channel_->handshake.store(slipstream::detail::Handshake::kRefused);
    pending_input_.clear();
    WebSocketAnswer answer = std::move(answer_);
    worker_.metrics().websocket.rejected.with({std::to_string(refusal.status)}).inc();
    answer.refuse(std::move(refusal));
    report_close(code, reason);
}

// ---- input ----

void WebSocketSession::on_bytes(std::string_view data) {
    activity_ = true;
    if (state_ == State::kPending) {
        // A client should wait for the answer; one that does not may send a frame's worth at most.
        if (pending_input_.size() + data.size() > worker_.options().ws_max_frame_bytes + 14) {
            transport_.ws_abort();
            return;
        }
        pending_input_.append(data);
        return;
    }
    while (!data.empty() && state_ != State::kClosed) {
        ws::MessageReader::Event e = reader_.read(data);
        data.remove_prefix(e.consumed);
        if (e.kind == ws::MessageReader::Kind::kNeedMore) break;
        handle_event(e);
    }
}

void WebSocketSession::handle_event(const ws::MessageReader::Event& e) {
    using Kind = ws::MessageReader::Kind;
    WebSocketMetrics& m = worker_.metrics().websocket;
    switch (e.kind) {
        case Kind::kText:
        case Kind::kBinary:
            m.messages_in.inc();
            m.bytes_in.inc(e.data.size());
            // After our close frame the client may still send data; RFC 6455 §5.5.1 lets us drop it.
            if (state_ == State::kOpen && handler_->on_message) {
                guarded("on_message", [&] { handler_->on_message(handle_, e.data, e.kind == Kind::kText); });
            }
            return;
        case Kind::kPing:
            if (state_ == State::kOpen) write_frame(ws::Opcode::kPong, e.data, false);
            return;
        case Kind::kPong:
            if (awaiting_pong_) {
                awaiting_pong_ = false;
                worker_.loop().schedule_after(
                    ping_timer_, std::int64_t{worker_.options().ws_ping_interval_ms} * base::kNanosPerMilli);
            }
            if (handler_->on_pong) guarded("on_pong", [&] { handler_->on_pong(handle_, e.data); });
            return;
        case Kind::kClose:
            on_peer_close(e.close_code, e.data);
            return;
        case Kind::kError: {
            // Fail the connection: our close frame carries the reason, then the TCP close follows.
            std::string reason(e.data);
            if (state_ == State::kOpen) {
                std::string frame;
                ws::append_close_frame(frame, e.close_code, reason);
                transport_.ws_output().append(frame);
            }
            state_ = State::kClosed;
            channel_->open.store(false);
            report_close(e.close_code, reason);
            transport_.ws_close_after_output();
            return;
        }
        case Kind::kNeedMore:
            return;
    }
}

void WebSocketSession::on_peer_close(std::uint16_t code, std::string_view reason) {
    if (state_ == State::kOpen) {
        // Echo the code (none when the client sent none); the server closes the TCP connection first.
        std::string frame;
        ws::append_close_frame(frame, code, {});  // 1005 becomes an empty payload
        transport_.ws_output().append(frame);
    }
    state_ = State::kClosed;
    channel_->open.store(false);
    close_timer_.cancel();
    std::string kept(reason);  // the reader's buffer is reused by the next read
    report_close(code, kept);
    transport_.ws_close_after_output();
}

void WebSocketSession::report_close(std::uint16_t code, std::string_view reason) {
    if (reported_) return;
    reported_ = true;
    ping_timer_.cancel();
    worker_.metrics().websocket.closes.with({WebSocketMetrics::code_label(code)}).inc();
    if (handler_->on_close) {
        try {
            handler_->on_close(handle_, code, reason);
        } catch (...) {
            base::log_message(base::LogLevel::kError, "websocket on_close threw");
        }
    }
}

void WebSocketSession::on_transport_closed() {
    auto pending = slipstream::detail::Handshake::kPending;
    channel_->handshake.compare_exchange_strong(pending, slipstream::detail::Handshake::kRefused);
    answer_ = {};
    state_ = State::kClosed;
    channel_->open.store(false);
    close_timer_.cancel();
    report_close(ws::kCloseAbnormal, "");
}

// ---- output ----

void WebSocketSession::write_frame(ws::Opcode opcode, std::string_view payload, bool compress) {
    OutputQueue& out = transport_.ws_output();
    ws::FrameOptions fo;
    std::string_view body = payload;
    if (compress && deflate_ && payload.size() >= kMinCompressBytes) {
        if (!deflater_) {
            deflater_ =
                std::make_unique<ws::Deflater>(deflate_->server_max_window_bits, deflate_->server_no_context_takeover);
        }
        frame_scratch_.clear();
        if (deflater_->compress(payload, frame_scratch_).is_ok() && frame_scratch_.size() < payload.size()) {
            body = frame_scratch_;
            fo.rsv1 = true;
        }
    }
    char head[ws::kMaxFrameHeader];
    std::size_t n = ws::encode_frame_header(opcode, body.size(), fo, head);
    out.append(std::string_view(head, n));
    out.append(body);
    channel_->output.store(out.size());
    transport_.ws_flush_soon();
}

void WebSocketSession::send_now(ws::Opcode opcode, std::string_view payload) {
    if (state_ != State::kOpen) return;
    bool data = opcode == ws::Opcode::kText || opcode == ws::Opcode::kBinary;
    if (data) {
        worker_.metrics().websocket.messages_out.inc();
        worker_.metrics().websocket.bytes_out.inc(payload.size());
    }
    // A compressed message must be compressed by this one thread in send order: the deflate context is
    // shared across messages (unless no_context_takeover), which is why sends are funnelled here.
    write_frame(opcode, data ? payload : payload.substr(0, 125), data);
}

void WebSocketSession::close_now(std::uint16_t code, std::string_view reason) {
    if (state_ == State::kPending) {
        // Not answered yet (a handler that threw, or the drain): refuse with an HTTP status instead.
        auto pending = slipstream::detail::Handshake::kPending;
        if (channel_->handshake.compare_exchange_strong(pending, slipstream::detail::Handshake::kRefused)) {
            refuse_now(Response(code == ws::kCloseGoingAway ? 503 : 500), code, reason);
        }
        return;
    }
    if (state_ != State::kOpen) return;
    if (!ws::is_valid_wire_close_code(code) || code == ws::kCloseProtocolError) code = ws::kCloseNormal;
    std::string frame;
    ws::append_close_frame(frame, code, reason);
    transport_.ws_output().append(frame);
    transport_.ws_flush_soon();
    state_ = State::kClosing;
    channel_->open.store(false);
    worker_.loop().schedule_after(close_timer_,
                                  std::int64_t{worker_.options().ws_close_timeout_ms} * base::kNanosPerMilli);
}

void WebSocketSession::begin_drain() {
    close_now(ws::kCloseGoingAway, "server shutting down");
}

void WebSocketSession::after_output(std::size_t unsent) {
    channel_->output.store(unsent);
    if (!channel_->want_drain.load()) return;
    if (channel_->pending.load() + unsent > channel_->max_queue / 2) return;
    channel_->want_drain.store(false);
    if (state_ == State::kOpen && handler_->on_drain) guarded("on_drain", [&] { handler_->on_drain(handle_); });
}

// ---- timers ----

void WebSocketSession::on_ping_timer() {
    const ServerOptions& o = worker_.options();
    if (awaiting_pong_) {
        worker_.metrics().websocket.pong_timeouts.inc();
        worker_.metrics().timeouts.with({"ws_pong"}).inc();
        transport_.ws_abort();
        return;
    }
    if (activity_) {
        // The client spoke recently: it is alive; look again after another interval.
        activity_ = false;
        worker_.loop().schedule_after(ping_timer_, std::int64_t{o.ws_ping_interval_ms} * base::kNanosPerMilli);
        return;
    }
    if (state_ != State::kOpen) return;
    write_frame(ws::Opcode::kPing, {}, false);
    awaiting_pong_ = true;
    worker_.loop().schedule_after(ping_timer_, std::int64_t{o.ws_pong_timeout_ms} * base::kNanosPerMilli);
}

void WebSocketSession::on_close_timer() {
    if (state_ == State::kPending) {
        // The handler neither accepted nor refused in time.
        auto pending = slipstream::detail::Handshake::kPending;
        if (channel_->handshake.compare_exchange_strong(pending, slipstream::detail::Handshake::kRefused)) {
            worker_.metrics().timeouts.with({"ws_accept"}).inc();
            refuse_now(Response(504), ws::kCloseAbnormal, "");
        }
        return;
    }
    worker_.metrics().timeouts.with({"ws_close"}).inc();
    transport_.ws_abort();
}

}  // namespace slipstream::server
