// H2Session's WebSocket streams (RFC 8441 extended CONNECT): the handshake, the 200, and the tunnel's DATA.
#include <memory>
#include <string>
#include <vector>

#include "http/h1/decode.h"
#include "http/ws/handshake.h"
#include "server/conn/request_pipeline.h"
#include "server/h2/h2_session.h"
#include "server/ws/websocket_negotiation.h"

namespace slipstream::server {

namespace h1 = http::h1;
namespace h2 = http::h2;

namespace {
// The 200's fields besides those the handler adds: Sec-WebSocket-Extensions, -Protocol, Server, X-Request-ID.
struct WebSocketHead {
    std::string extensions;
    std::string server;
    std::string request_id;

    // Fields as views into this head, `subprotocol` and `extra`; returns the approximate head bytes.
    std::size_t fields(std::string_view subprotocol, const WebSocketAnswerHeaders& extra,
                       std::vector<h2::HeaderField>& out) const {
        out.clear();
        if (!extensions.empty()) out.push_back({"sec-websocket-extensions", extensions});
        if (!subprotocol.empty()) out.push_back({"sec-websocket-protocol", subprotocol});
        if (!server.empty()) out.push_back({"server", server});
        if (!request_id.empty()) out.push_back({"x-request-id", request_id});
        for (const auto& [name, value] : extra)
            out.push_back({name, value});
        std::size_t bytes = 3;  // ":status" 200
        for (const h2::HeaderField& f : out)
            bytes += f.name.size() + f.value.size();
        return bytes;
    }
};
}  // namespace

bool H2Session::websocket_route(std::string_view raw_path) {
    h1::PathDecodeResult path = h1::decode_path(raw_path, worker_.path_scratch(raw_path.size()));
    if (path.status != h1::DecodeStatus::kOk) return false;
    RouteMatch match;
    const RouteTable& routes = worker_.routes();
    return routes.router().match(Method::kGet, path.path, &match) == MatchOutcome::kFound &&
           routes.entry(match.route_id).websocket != nullptr;
}

bool H2Session::tunnel_routed(h2::StreamId id, const h2::RequestHead& head, NextStep next, PipelineRequest& req,
                              const H2Context& ctx) {
    req.record.method = Method::kConnect;  // logged as sent
    req.record.method_text = head.method;
    // Not a WebSocket route: routed as CONNECT, the router answered 404 or 405; a CONNECT route is no tunnel.
    if (next != NextStep::kSync && next != NextStep::kAsync) return true;
    answer_and_observe(id, problem_response({400, "an extended CONNECT needs a WebSocket route"}), ctx, req.record);
    return false;
}

void H2Session::open_websocket(h2::StreamId id, const h2::RequestHead& head, PipelineRequest& req,
                               const H2Context& ctx) {
    auto refuse = [&](Response&& r) {
        worker_.metrics().websocket.rejected.with({std::to_string(r.status)}).inc();
        answer_and_observe(id, std::move(r), ctx, req.record);
    };
    // Phase 1: the handshake (RFC 8441 §5: no Sec-WebSocket-Key; the version as on HTTP/1.1, but HTTP/2
    // has no Upgrade field to answer a 426 with).
    if (head.protocol.empty()) {
        return refuse(websocket_refusal(400, "a WebSocket route needs an extended CONNECT (RFC 8441)", false));
    }
    http::ws::UpgradeRequest upgrade;
    for (const h2::HeaderField& f : head.headers)
        upgrade.add_header(f.name, f.value);
    if (http::ws::HandshakeResult verdict = http::ws::check_extended_connect(upgrade); verdict.status != 200) {
        Response r = websocket_refusal(verdict.status, verdict.error, false);
        r.headers.emplace_back("Sec-WebSocket-Version", "13");
        return refuse(std::move(r));
    }
    if (draining_ || worker_.draining()) return refuse(websocket_refusal(503, "the server is shutting down"));

    // Phase 2: the application may refuse (authentication, origin checks).
    const RouteEntry& entry = *req.entry;
    const WebSocketHandler& handler = *entry.websocket;
    if (std::optional<Response> veto = websocket_veto(entry, req.state)) return refuse(std::move(*veto));

    // Phase 3: negotiate; the fast path answers 200 now, manual accept when the handler says so.
    WebSocketOffer offer = negotiate_websocket(worker_, handler, upgrade);
    WebSocketHead fields{std::move(offer.extensions), std::string(ctx.server), std::string(ctx.request_id)};
    auto owned =
        std::make_unique<H2WebSocketStream>(*session_, id, worker_, [conn = &connection_] { conn->schedule_flush(); });
    H2WebSocketStream& stream = *owned;
    websockets_[id] = std::move(owned);
    if (!handler.manual_accept) {
        std::vector<h2::HeaderField> list;
        std::size_t bytes = fields.fields(offer.subprotocol, {}, list);
        session_->start_stream(id, 200, list).ignore_error();
        worker_.observe(req.record, 200, bytes, peer_);
    }
    offer.channel->request = std::move(req.state);
    offer.channel->request.detach();

    // Phase 4: from here on the stream's DATA is WebSocket frames.
    WebSocketSession& ws = stream.open(worker_, entry.websocket, std::move(offer.channel), offer.deflate);
    if (!handler.manual_accept) {
        ws.start();
        output_ready();
        return;
    }
    auto record = std::make_shared<OwnedRecord>(req.record);
    WebSocketAnswer answer;
    answer.accept = [this, id, record, fields](std::string_view subprotocol, const WebSocketAnswerHeaders& headers) {
        std::vector<h2::HeaderField> list;
        std::size_t bytes = fields.fields(subprotocol, headers, list);
        session_->start_stream(id, 200, list).ignore_error();
        worker_.observe(record->record, 200, bytes, peer_);
        output_ready();
    };
    answer.refuse = [this, id, record, fields](Response&& refusal) {
        auto it = websockets_.find(id);
        if (it != websockets_.end()) it->second->set_answered();
        H2Context c{worker_.date(), fields.server, fields.request_id, false};
        auto [status, bytes] = this->answer(id, std::move(refusal), c);
        worker_.observe(record->record, status, bytes, peer_);
        output_ready();
    };
    ws.start_pending(std::move(answer));
}

void H2Session::on_stream_data(h2::StreamId id, std::string_view data) {
    auto it = websockets_.find(id);
    if (it == websockets_.end()) {
        session_->consume(id, data.size());  // a refused tunnel: its bytes are dropped
        return;
    }
    it->second->on_data(data);
}

void H2Session::on_stream_end(h2::StreamId id) {
    auto it = websockets_.find(id);
    if (it != websockets_.end()) it->second->on_end();
}

void H2Session::on_stream_closed(h2::StreamId id) {
    auto it = websockets_.find(id);
    if (it == websockets_.end()) return;
    std::unique_ptr<H2WebSocketStream> stream = std::move(it->second);
    websockets_.erase(it);
    stream->on_closed();
}

}  // namespace slipstream::server
