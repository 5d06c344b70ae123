// WebSocket: the public handle; sends from other threads are posted to the connection's loop.
#include "slipstream/websocket.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "http/ws/close_code.h"
#include "http/ws/handshake.h"
#include "http/ws/opcode.h"
#include "server/observe/websocket_metrics.h"
#include "server/ws/websocket_channel.h"
#include "server/ws/websocket_session.h"

namespace slipstream {

using detail::WebSocketChannel;
namespace ws = http::ws;

WebSocket::WebSocket(std::shared_ptr<WebSocketChannel> channel) : channel_(std::move(channel)) {}

SendStatus WebSocket::send(std::uint8_t opcode, std::string_view payload) {
    if (!channel_ || !channel_->open.load()) return SendStatus::kClosed;
    WebSocketChannel& ch = *channel_;
    if (ch.handshake.load() != detail::Handshake::kAccepted) return SendStatus::kClosed;
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

namespace {

// Runs `fn(session)` on the channel's loop thread: at once when called there, else posted.
template <typename Fn>
bool on_loop(const std::shared_ptr<WebSocketChannel>& channel, Fn&& fn) {
    if (std::this_thread::get_id() == channel->loop_thread) {
        if (channel->session) fn(*channel->session);
        return true;
    }
    return channel->loop->post([c = channel, f = std::forward<Fn>(fn)]() mutable {
        if (c->session) f(*c->session);
    });
}

bool leave_pending(WebSocketChannel& ch, detail::Handshake to) {
    auto expected = detail::Handshake::kPending;
    return ch.handshake.compare_exchange_strong(expected, to);
}

}  // namespace

bool WebSocket::accept(std::string_view subprotocol, std::vector<std::pair<std::string, std::string>> headers) {
    if (!channel_ || channel_->handshake.load() != detail::Handshake::kPending) return false;
    if (!subprotocol.empty()) {
        const std::vector<std::string>& offered = channel_->offered;
        if (std::find(offered.begin(), offered.end(), subprotocol) == offered.end()) return false;
    }
    for (const auto& [name, value] : headers) {
        if (!ws::is_valid_answer_header(name, value)) return false;
    }
    if (!leave_pending(*channel_, detail::Handshake::kAccepted)) return false;
    return on_loop(channel_, [p = std::string(subprotocol), h = std::move(headers)](server::WebSocketSession& s) {
        s.accept_now(p, h);
    });
}

bool WebSocket::reject(Response response) {
    if (!channel_ || !leave_pending(*channel_, detail::Handshake::kRefused)) return false;
    channel_->open.store(false);
    return on_loop(channel_, [r = std::move(response)](server::WebSocketSession& s) mutable {
        s.refuse_now(std::move(r), ws::kCloseAbnormal, {});
    });
}

bool WebSocket::is_accepted() const {
    return channel_ && channel_->handshake.load() == detail::Handshake::kAccepted;
}

const std::vector<std::string>& WebSocket::offered_subprotocols() const {
    static const std::vector<std::string> kNone;
    return channel_ ? channel_->offered : kNone;
}

bool WebSocket::close(std::uint16_t code, std::string_view reason) {
    if (!channel_) return false;
    if (leave_pending(*channel_, detail::Handshake::kRefused)) {
        // Before accept: Starlette's answer, an HTTP 403; the handler still learns its own code.
        channel_->open.store(false);
        return on_loop(channel_, [code, r = std::string(reason)](server::WebSocketSession& s) {
            s.refuse_now(Response(403), code, r);
        });
    }
    if (!channel_->open.exchange(false)) return false;
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
