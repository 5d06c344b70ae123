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

// A RequestRecord whose views point into its own strings (a deferred answer is logged after the request
// buffer is gone).
struct OwnedRecord {
    explicit OwnedRecord(const RequestRecord& r)
        : route(r.route), method(r.method_text), path(r.path), request_id(r.request_id), trace_id(r.trace_id) {
        record = r;
        record.route = route;
        record.method_text = method;
        record.path = path;
        record.request_id = request_id;
        record.trace_id = trace_id;
    }
    OwnedRecord(const OwnedRecord&) = delete;
    OwnedRecord& operator=(const OwnedRecord&) = delete;

    std::string route, method, path, request_id, trace_id;
    RequestRecord record;
};

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

    // Phase 3: negotiate; the fast path answers 101 now, manual accept when the handler says so.
    std::optional<ws::DeflateConfig> deflate;
    if (worker_.options().ws_deflate) deflate = ws::negotiate_deflate(upgrade.extensions());
    auto channel = std::make_shared<slipstream::detail::WebSocketChannel>();
    channel->loop = worker_.loop_ref();
    channel->loop_thread = std::this_thread::get_id();
    channel->metrics = &metrics;
    channel->compressed = deflate.has_value();
    channel->max_queue = worker_.options().ws_max_send_queue_bytes;
    channel->offered = ws::split_subprotocols(upgrade.protocols());
    AnswerHead head_fields{std::move(hs.accept), deflate ? deflate->response_header() : std::string(),
                           std::string(ctx.server), std::string(ctx.request_id)};
    if (!handler.manual_accept) {
        std::string_view subprotocol = ws::select_subprotocol(upgrade.protocols(), join_list(handler.subprotocols));
        channel->subprotocol = std::string(subprotocol);
        std::string answer = switching_protocols(head_fields, subprotocol, {});
        out_.append(answer);
        worker_.observe(record, 101, answer.size(), peer_);
    }
    channel->request = std::move(state);
    channel->request.detach();

    // Phase 4: from here on every byte of this connection is WebSocket frames.
    WebSocketTransport& transport = *this;  // a private base: convert here, where it is accessible
    ws_ = std::make_unique<WebSocketSession>(transport, worker_, entry.websocket, std::move(channel), deflate);
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
