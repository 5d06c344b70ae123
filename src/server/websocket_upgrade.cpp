// The connection's WebSocket hook: the upgrade handshake and the transport a WebSocketSession writes through.
#include <algorithm>
#include <thread>

#include "base/log.h"
#include "http/ws/deflate_config.h"
#include "http/ws/handshake.h"
#include "server/connection.h"
#include "server/problem.h"
#include "server/response_encoder.h"
#include "server/websocket_channel.h"
#include "server/websocket_session.h"
#include "server/worker.h"

namespace slipstream::server {

namespace ws = http::ws;

namespace {

Response refusal(int status, std::string_view detail) {
    Response r(status);
    r.body = problem_body({status, detail});
    r.content_type = std::string(kProblemContentType);
    if (status == 426) {
        r.headers.emplace_back("Upgrade", "websocket");
        r.headers.emplace_back("Sec-WebSocket-Version", "13");
    }
    return r;
}

std::string join_list(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) {
        if (!out.empty()) out.append(", ");
        out.append(s);
    }
    return out;
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
    if (hs.status != 101) return refuse(refusal(hs.status, hs.error));
    if (!slots_.empty()) return refuse(refusal(400, "an upgrade must not follow unanswered requests"));
    if (worker_.draining()) return refuse(refusal(503, "the server is shutting down"));

    // Phase 2: the application may refuse (authentication, origin checks).
    const WebSocketHandler& handler = *entry.websocket;
    if (handler.on_upgrade) {
        Request request(&state);
        std::optional<Response> answer;
        try {
            answer = handler.on_upgrade(request);
        } catch (const std::exception& e) {
            base::log_message(base::LogLevel::kError,
                              "websocket on_upgrade for " + entry.pattern + " threw: " + e.what());
            answer = refusal(500, "the handler failed");
        } catch (...) {
            answer = refusal(500, "the handler failed");
        }
        if (answer) return refuse(std::move(*answer));
    }

    // Phase 3: negotiate and answer 101.
    std::optional<ws::DeflateConfig> deflate;
    if (worker_.options().ws_deflate) deflate = ws::negotiate_deflate(upgrade.extensions());
    std::string protocols = join_list(handler.subprotocols);
    std::string_view subprotocol = ws::select_subprotocol(upgrade.protocols(), protocols);
    std::string answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n";
    answer.append("Sec-WebSocket-Accept: ").append(hs.accept).append("\r\n");
    if (deflate) answer.append("Sec-WebSocket-Extensions: ").append(deflate->response_header()).append("\r\n");
    if (!subprotocol.empty()) answer.append("Sec-WebSocket-Protocol: ").append(subprotocol).append("\r\n");
    if (!ctx.server.empty()) answer.append("Server: ").append(ctx.server).append("\r\n");
    if (!ctx.request_id.empty()) answer.append("X-Request-ID: ").append(ctx.request_id).append("\r\n");
    answer.append("\r\n");
    out_.append(answer);
    worker_.observe(record, 101, answer.size(), peer_);

    // Phase 4: from here on every byte of this connection is WebSocket frames.
    auto channel = std::make_shared<slipstream::detail::WebSocketChannel>();
    channel->loop = worker_.loop_ref();
    channel->loop_thread = std::this_thread::get_id();
    channel->metrics = &metrics;
    channel->subprotocol = std::string(subprotocol);
    channel->compressed = deflate.has_value();
    channel->max_queue = worker_.options().ws_max_send_queue_bytes;
    channel->request = std::move(state);
    channel->request.detach();
    WebSocketTransport& transport = *this;  // a private base: convert here, where it is accessible
    ws_ = std::make_unique<WebSocketSession>(transport, worker_, entry.websocket, std::move(channel), deflate);
    ws_->start();
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
