// WebSocket: the public handle; sends from other threads are posted to the connection's loop.
#include "slipstream/websocket.h"

#include <string>

#include "http/ws/opcode.h"
#include "server/websocket_channel.h"
#include "server/websocket_metrics.h"
#include "server/websocket_session.h"

namespace slipstream {

using detail::WebSocketChannel;
namespace ws = http::ws;

WebSocket::WebSocket(std::shared_ptr<WebSocketChannel> channel) : channel_(std::move(channel)) {}

SendStatus WebSocket::send(std::uint8_t opcode, std::string_view payload) {
    if (!channel_ || !channel_->open.load()) return SendStatus::kClosed;
    WebSocketChannel& ch = *channel_;
    std::size_t n = payload.size();
    std::size_t buffered = ch.pending.load() + ch.output.load();
    // An empty queue takes any message (else one larger than the queue could never be sent).
    if (buffered > 0 && buffered + n > ch.max_queue) {
        ch.want_drain.store(true);
        if (ch.metrics) ch.metrics->dropped_sends.inc();
        return SendStatus::kDropped;
    }
    auto op = static_cast<ws::Opcode>(opcode);
    if (std::this_thread::get_id() == ch.loop_thread) {
        if (ch.session == nullptr) return SendStatus::kClosed;
        ch.session->send_now(op, payload);
    } else {
        ch.pending.fetch_add(n);
        bool posted = ch.loop->post([c = channel_, op, data = std::string(payload)] {
            c->pending.fetch_sub(data.size());
            if (c->session) c->session->send_now(op, data);
        });
        if (!posted) {
            ch.pending.fetch_sub(n);
            return SendStatus::kClosed;
        }
    }
    if (buffered + n > ch.max_queue / 2) {
        ch.want_drain.store(true);
        return SendStatus::kBackpressure;
    }
    return SendStatus::kOk;
}

SendStatus WebSocket::send_text(std::string_view text) {
    return send(static_cast<std::uint8_t>(ws::Opcode::kText), text);
}

SendStatus WebSocket::send_binary(std::string_view data) {
    return send(static_cast<std::uint8_t>(ws::Opcode::kBinary), data);
}

SendStatus WebSocket::ping(std::string_view payload) {
    return send(static_cast<std::uint8_t>(ws::Opcode::kPing), payload.substr(0, 125));
}

bool WebSocket::close(std::uint16_t code, std::string_view reason) {
    if (!channel_ || !channel_->open.exchange(false)) return false;
    if (std::this_thread::get_id() == channel_->loop_thread) {
        if (channel_->session) channel_->session->close_now(code, reason);
        return true;
    }
    return channel_->loop->post([c = channel_, code, r = std::string(reason)] {
        if (c->session) c->session->close_now(code, r);
    });
}

bool WebSocket::is_open() const {
    return channel_ && channel_->open.load();
}

std::size_t WebSocket::buffered_amount() const {
    return channel_ ? channel_->pending.load() + channel_->output.load() : 0;
}

Request WebSocket::request() const {
    return Request(channel_ ? &channel_->request : nullptr);
}

std::string_view WebSocket::subprotocol() const {
    return channel_ ? std::string_view(channel_->subprotocol) : std::string_view();
}

bool WebSocket::compressed() const {
    return channel_ && channel_->compressed;
}

void WebSocket::set_user_data(std::shared_ptr<void> data) {
    if (channel_) channel_->user_data = std::move(data);
}

std::shared_ptr<void> WebSocket::user_data() const {
    return channel_ ? channel_->user_data : nullptr;
}

}  // namespace slipstream
