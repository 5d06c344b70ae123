// H2Session's request path: an HTTP/2 stream's request into the RequestPipeline, its answer back as frames.
#include <span>

#include "http/h1/header.h"
#include "server/conn/request_pipeline.h"
#include "server/h2/h2_session.h"

namespace slipstream::server {

namespace h1 = http::h1;
namespace h2 = http::h2;

void H2Session::on_request(h2::StreamId id, const h2::RequestHead& head) {
    H2Context ctx{worker_.date(), worker_.options().server_header, {}, false};
    // Refused before a request exists (the h2 layer's limits): answered and recorded here.
    auto refuse = [&](int status, std::string_view why) {
        RequestRecord record;
        record.start = base::mono_now();
        record.method = parse_method(head.method);
        record.method_text = head.method;
        record.request_bytes = head.body.size();
        ctx.head_only = record.method == Method::kHead;
        answer_and_observe(id, problem_response({status, why}), ctx, record);
    };
    if (head.error_status != 0) {
        refuse(head.error_status,
               head.error_status == 413 ? "the request body is too large" : "the request header fields are too large");
        return;
    }
    // An extended CONNECT (RFC 8441) is a tunnel; the WebSocket is the one protocol offered.
    const bool tunnel = !head.protocol.empty();
    if (tunnel && head.protocol != "websocket") {
        refuse(501, "the only :protocol served is websocket");
        return;
    }

    // Fields as the views every later stage reads (names are lowercase); :authority doubles as Host.
    std::span<h1::Header> scratch = worker_.header_scratch();
    if (head.headers.size() + 1 > scratch.size()) {
        refuse(431, "too many header fields");
        return;
    }
    RequestInput in;
    std::size_t count = 0;
    bool has_host = false;
    for (const h2::HeaderField& f : head.headers) {
        scratch[count++] = {f.name, f.value};
        if (f.name == "host") has_host = true;
        if (f.name == "x-request-id") in.client_request_id = f.value;
        if (f.name == "traceparent") in.traceparent = f.value;
    }
    if (!has_host && !head.authority.empty()) scratch[count++] = {"host", head.authority};
    std::size_t q = head.path.find('?');
    in.method = head.method;
    in.method_id = parse_method(head.method);
    in.target = head.path;
    in.path = head.path.substr(0, q);
    in.query = q == std::string_view::npos ? std::string_view() : head.path.substr(q + 1);
    in.headers = std::span<const h1::Header>(scratch.data(), count);
    in.body = head.body;
    in.http2 = true;
    in.peer = &peer_;
    if (tunnel && websocket_route(in.path)) {
        in.method = "GET";  // the method a WebSocket route is registered (and seen by its handler) under
        in.method_id = Method::kGet;
    }

    RequestPipeline pipeline(worker_);
    PipelineRequest req;
    NextStep next = pipeline.route(in, req);
    ctx.request_id = worker_.response_request_id(req.record.request_id);
    ctx.head_only = req.head_only;
    if (tunnel && !tunnel_routed(id, head, next, req, ctx)) return;
    switch (next) {
        case NextStep::kAnswer:
        case NextStep::kAnswerAndClose:  // the stream ends with its answer; the connection goes on
            answer_and_observe(id, std::move(req.answer), ctx, req.record);
            return;
        case NextStep::kWebSocket:
            open_websocket(id, head, req, ctx);
            return;
        case NextStep::kSync:
            answer_and_observe(id, pipeline.call(req), ctx, req.record);
            return;
        case NextStep::kAsync:
            dispatch_async(id, pipeline, req);
            return;
    }
}

void H2Session::dispatch_async(h2::StreamId id, RequestPipeline& pipeline, PipelineRequest& req) {
    HandlerCount::Ticket admitted = pipeline.admit();
    if (!admitted && worker_.handlers()) {  // max_handlers_in_flight run already: the client may retry
        session_->reset(id, h2::ErrorCode::kRefusedStream);
        return;
    }
    SinkLink link = pipeline.detach(req, *this);
    std::shared_ptr<slipstream::detail::PendingResponse> pending = link.shared();
    pending->admitted = std::move(admitted);
    slipstream::detail::PendingResponse* raw = pending.get();
    pending->handler_timer.set_callback([this, raw] { on_handler_timeout(*raw); });
    AsyncStream a;
    a.id = id;
    a.pending = std::move(link);
    a.record = req.record;
    a.head_only = req.head_only;
    async_.emplace(raw, std::move(a));
    by_stream_[id] = raw;
    pipeline.call_async(req, pending);
}

}  // namespace slipstream::server
