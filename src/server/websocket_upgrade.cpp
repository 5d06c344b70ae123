// The connection's WebSocket hook: the upgrade handshake and the transport a WebSocketSession writes through.
#include <algorithm>

#include "http/ws/handshake.h"
#include "server/connection.h"
#include "server/h1/response_encoder.h"
#include "server/websocket_negotiation.h"
#include "server/websocket_session.h"
#include "server/worker.h"

namespace slipstream::server {

namespace ws = http::ws;

namespace {

// The 101's fields that do not depend on the handler's choice.
struct AnswerHead {
    std::string accept;      // Sec-WebSocket-Accept
    std::string extensions;  // Sec-WebSocket-Extensions; empty: none
    std::string server;
    std::string request_id;
};

std::string switching_protocols(const AnswerHead& f, std::string_view subprotocol,
                                const WebSocketAnswerHeaders& extra) {
    std::string answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n";
    answer.append("Sec-WebSocket-Accept: ").append(f.accept).append("\r\n");
    if (!f.extensions.empty()) answer.append("Sec-WebSocket-Extensions: ").append(f.extensions).append("\r\n");
    if (!subprotocol.empty()) answer.append("Sec-WebSocket-Protocol: ").append(subprotocol).append("\r\n");
    if (!f.server.empty()) answer.append("Server: ").append(f.server).append("\r\n");
    if (!f.request_id.empty()) answer.append("X-Request-ID: ").append(f.request_id).append("\r\n");
    for (const auto& [name, value] : extra)
        answer.append(name).append(": ").append(value).append("\r\n");
    answer.append("\r\n");
    return answer;
}

}  // namespace

void Connection::upgrade_websocket(const http::h1::RequestHead& head, slipstream::detail::RequestState& state,
                                   const RouteEntry& entry, RequestRecord& record, const EncodeContext& ctx) {
    WebSocketMetrics& metrics = worker_.metrics().websocket;
    auto refuse = [&](Response&& r) {
        int status = r.status;
        metrics.rejected.with({std::to_string(status)}).inc();
        OutputQueue& out = output_for_next(!ctx.keep_alive);
        std::size_t before = out.size();
        if (!encode_response(std::move(r), ctx, out)) status = 500;
        worker_.observe(record, status, out.size() - before, peer_);
    };

    // Phase 1: the handshake itself (RFC 6455 §4.2.1).
    ws::UpgradeRequest upgrade;
    for (const http::h1::Header& h : head.headers)
        upgrade.add_header(h.name, h.value);
    ws::HandshakeResult hs = ws::check_handshake(head.method, head.version == http::h1::Version::kHttp11, upgrade);
    if (hs.status != 101) return refuse(websocket_refusal(hs.status, hs.error));
    if (!slots_.empty()) return refuse(websocket_refusal(400, "an upgrade must not follow unanswered requests"));
    if (worker_.draining()) return refuse(websocket_refusal(503, "the server is shutting down"));

    // Phase 2: the application may refuse (authentication, origin checks).
    const WebSocketHandler& handler = *entry.websocket;
    if (std::optional<Response> veto = websocket_veto(entry, state)) return refuse(std::move(*veto));

    // Phase 3: negotiate; the fast path answers 101 now, manual accept when the handler says so.
    WebSocketOffer offer = negotiate_websocket(worker_, handler, upgrade);
    AnswerHead head_fields{std::move(hs.accept), std::move(offer.extensions), std::string(ctx.server),
                           std::string(ctx.request_id)};
    if (!handler.manual_accept) {
        std::string answer = switching_protocols(head_fields, offer.subprotocol, {});
        out_.append(answer);
        worker_.observe(record, 101, answer.size(), peer_);
    }
    offer.channel->request = std::move(state);
    offer.channel->request.detach();

    // Phase 4: from here on every byte of this connection is WebSocket frames.
    WebSocketTransport& transport = *this;  // a private base: convert here, where it is accessible
    ws_ = std::make_unique<WebSocketSession>(transport, worker_, entry.websocket, std::move(offer.channel),
                                             offer.deflate);
    if (!handler.manual_accept) return ws_->start();

    // Manual accept: the answer is written when the handler decides; the record's views must outlive this call.
    auto owned = std::make_shared<OwnedRecord>(record);
    WebSocketAnswer answer;
    answer.accept = [this, owned, fields = std::move(head_fields)](std::string_view subprotocol,
                                                                   const WebSocketAnswerHeaders& headers) {
        std::string bytes = switching_protocols(fields, subprotocol, headers);
        out_.append(bytes);
        schedule_flush();
        worker_.observe(owned->record, 101, bytes.size(), peer_);
    };
    answer.refuse = [this, owned, version = ctx.version, server = std::string(ctx.server),
                     id = std::string(ctx.request_id)](Response&& refusal) {
        EncodeContext c{version, false, false, worker_.date(), server, id};
        int status = refusal.status;
        std::size_t before = out_.size();
        if (!encode_response(std::move(refusal), c, out_)) status = 500;
        worker_.observe(owned->record, status, out_.size() - before, peer_);
        ws_close_after_output();
    };
    ws_->start_pending(std::move(answer));
}

OutputQueue& Connection::ws_output() {
    return out_;
}

void Connection::ws_flush_soon() {
    schedule_flush();
}

void Connection::ws_close_after_output() {
    close_after_write_ = true;
    set_reading(false);
    schedule_flush();
}

void Connection::ws_abort() {
    close();
}

std::size_t Connection::output_limit() const {
    const ServerOptions& o = worker_.options();
    return ws_ ? std::max<std::size_t>(std::min(o.max_output_buffer, o.ws_max_send_queue_bytes / 2), 1)
               : o.max_output_buffer;
}

}  // namespace slipstream::server
