// WebSocket handshake steps shared by both protocols: refusals, the on_upgrade veto, deflate and subprotocol.
#include "server/ws/websocket_negotiation.h"

#include <exception>
#include <thread>
#include <vector>

#include "base/log.h"
#include "server/core/problem.h"
#include "slipstream/request.h"

namespace slipstream::server {

namespace ws = http::ws;

namespace {
std::string join_list(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) {
        if (!out.empty()) out.append(", ");
        out.append(s);
    }
    return out;
}
}  // namespace

Response websocket_refusal(int status, std::string_view detail, bool upgrade_fields) {
    Response r(status);
    r.body = problem_body({status, detail});
    r.content_type = std::string(kProblemContentType);
    if (status == 426 && upgrade_fields) {
        r.headers.emplace_back("Upgrade", "websocket");
        r.headers.emplace_back("Sec-WebSocket-Version", "13");
    }
    return r;
}

std::optional<Response> websocket_veto(const RouteEntry& entry, slipstream::detail::RequestState& state) {
    const WebSocketHandler& handler = *entry.websocket;
    if (!handler.on_upgrade) return std::nullopt;
    Request request(&state);
    try {
        return handler.on_upgrade(request);
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, "websocket on_upgrade for " + entry.pattern + " threw: " + e.what());
    } catch (...) {
        base::log_message(base::LogLevel::kError, "websocket on_upgrade for " + entry.pattern + " threw");
    }
    return websocket_refusal(500, "the handler failed");
}

WebSocketOffer negotiate_websocket(Worker& worker, const WebSocketHandler& handler, const ws::UpgradeRequest& request) {
    WebSocketOffer offer;
    if (worker.options().ws_deflate) offer.deflate = ws::negotiate_deflate(request.extensions());
    if (offer.deflate) offer.extensions = offer.deflate->response_header();
    auto channel = std::make_shared<slipstream::detail::WebSocketChannel>();
    channel->loop = worker.loop_ref();
    channel->loop_thread = std::this_thread::get_id();
    channel->metrics = &worker.metrics().websocket;
    channel->compressed = offer.deflate.has_value();
    channel->max_queue = worker.options().ws_max_send_queue_bytes;
    channel->offered = ws::split_subprotocols(request.protocols());
    if (!handler.manual_accept) {
        offer.subprotocol = std::string(ws::select_subprotocol(request.protocols(), join_list(handler.subprotocols)));
        channel->subprotocol = offer.subprotocol;
    }
    offer.channel = std::move(channel);
    return offer;
}

OwnedRecord::OwnedRecord(const RequestRecord& r)
    : route(r.route), method(r.method_text), path(r.path), request_id(r.request_id), trace_id(r.trace_id) {
    record = r;
    record.route = route;
    record.method_text = method;
    record.path = path;
    record.request_id = request_id;
    record.trace_id = trace_id;
}

}  // namespace slipstream::server
