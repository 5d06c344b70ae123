// H1Session's WebSocket upgrade: the handshake, then the connection speaks WebSocket (UpgradedWebSocket).
#include "http/ws/handshake.h"
#include "server/conn/worker.h"
#include "server/encode/response_encoder.h"
#include "server/h1/h1_session.h"
#include "server/ws/upgraded_websocket.h"
#include "server/ws/websocket_negotiation.h"
#include "server/ws/websocket_session.h"

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

void H1Session::upgrade_websocket(const http::h1::RequestHead& head, slipstream::detail::RequestState& state,
                                  const RouteEntry& entry, RequestRecord& record, const EncodeContext& ctx) {
    WebSocketMetrics& metrics = worker_.metrics().websocket;
    auto refuse = [&](Response&& r) {
        int status = r.status;
        metrics.rejected.with({std::to_string(status)}).inc();
        OutputQueue& out = output_for_next(!ctx.keep_alive);
        std::size_t before = out.size();
        if (!encode_response(std::move(r), ctx, out)) status = 500;
        worker_.observe(record, status, out.size() - before, conn_.peer());
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
        conn_.output().append(answer);
        worker_.observe(record, 101, answer.size(), conn_.peer());
    }
    offer.channel->request = std::move(state);
    offer.channel->request.detach();

    // Phase 4: from here on every byte of this connection is WebSocket frames. The switch comes first, so that a
    // close during on_open reaches the new session.
    auto next = std::make_unique<UpgradedWebSocket>(conn_, entry.websocket, std::move(offer.channel), offer.deflate);
    UpgradedWebSocket& ws = *next;
    conn_.switch_to(std::move(next));
    upgraded_ = &ws;
    if (!handler.manual_accept) return ws.session().start();

    // Manual accept: the answer is written when the handler decides; the record's views must outlive this call.
    // The answers capture the connection, which owns the WebSocket session that calls them.
    auto owned = std::make_shared<OwnedRecord>(record);
    Connection* conn = &conn_;
    WebSocketAnswer answer;
    answer.accept = [conn, owned, fields = std::move(head_fields)](std::string_view subprotocol,
                                                                   const WebSocketAnswerHeaders& headers) {
        std::string bytes = switching_protocols(fields, subprotocol, headers);
        conn->output().append(bytes);
        conn->schedule_flush();
        conn->worker().observe(owned->record, 101, bytes.size(), conn->peer());
    };
    answer.refuse = [conn, owned, version = ctx.version, server = std::string(ctx.server),
                     id = std::string(ctx.request_id)](Response&& refusal) {
        Worker& worker = conn->worker();
        OutputQueue& out = conn->output();
        EncodeContext c{version, false, false, worker.date(), server, id};
        int status = refusal.status;
        std::size_t before = out.size();
        if (!encode_response(std::move(refusal), c, out)) status = 500;
        worker.observe(owned->record, status, out.size() - before, conn->peer());
        conn->set_closing();  // then close once it is written
        conn->set_reading(false);
        conn->schedule_flush();
    };
    ws.session().start_pending(std::move(answer));
}

}  // namespace slipstream::server
