// H2Session's request path: an HTTP/2 request through the same stages as an HTTP/1.1 one.
#include <array>
#include <exception>

#include "base/log.h"
#include "http/h1/decode.h"
#include "server/h2_session.h"
#include "server/request_ids.h"
#include "server/route_miss.h"
#include "server/validation_failure.h"
#include "slipstream/request.h"
#include "slipstream/responder.h"

namespace slipstream::server {

namespace h1 = http::h1;
namespace h2 = http::h2;

void H2Session::on_request(h2::StreamId id, const h2::RequestHead& head) {
    RequestRecord record;
    record.start = base::mono_now();
    record.method = parse_method(head.method);
    record.method_text = head.method;
    record.request_bytes = head.body.size();
    H2Context ctx{worker_.date(), worker_.options().server_header, {}, record.method == Method::kHead};
    if (head.error_status != 0) {
        std::string_view why =
            head.error_status == 413 ? "the request body is too large" : "the request header fields are too large";
        answer_and_observe(id, problem_response({head.error_status, why}), ctx, record);
        return;
    }

    // Fields as the views every later stage reads (names are lowercase); :authority doubles as Host.
    std::span<h1::Header> scratch = worker_.header_scratch();
    if (head.headers.size() + 1 > scratch.size()) {
        answer_and_observe(id, problem_response({431, "too many header fields"}), ctx, record);
        return;
    }
    std::size_t count = 0;
    bool has_host = false;
    std::string_view client_id, traceparent;
    for (const h2::HeaderField& f : head.headers) {
        scratch[count++] = {f.name, f.value};
        if (f.name == "host") has_host = true;
        if (f.name == "x-request-id") client_id = f.value;
        if (f.name == "traceparent") traceparent = f.value;
    }
    if (!has_host && !head.authority.empty()) scratch[count++] = {"host", head.authority};
    std::span<const h1::Header> headers(scratch.data(), count);

    char id_buf[32];
    record.request_id = valid_request_id(client_id) ? client_id : worker_.request_ids().next(id_buf);
    record.trace_id = parse_traceparent(traceparent);
    ctx.request_id = record.request_id;

    std::size_t q = head.path.find('?');
    std::string_view raw_path = head.path.substr(0, q);
    record.path = raw_path;
    h1::PathDecodeResult path = h1::decode_path(raw_path, worker_.path_scratch(raw_path.size()));
    if (path.status != h1::DecodeStatus::kOk) {
        answer_and_observe(id, problem_response({400, "invalid percent-encoding in the path"}), ctx, record);
        return;
    }

    slipstream::detail::RequestState state;
    state.method = head.method;
    state.target = head.path;
    state.path = path.path;
    state.query = q == std::string_view::npos ? std::string_view() : head.path.substr(q + 1);
    state.body = head.body;
    state.headers = headers;
    state.version = h1::Version::kHttp11;
    state.http2 = true;
    state.peer = peer_;
    state.request_id = record.request_id;
    state.trace_id = record.trace_id;
    state.traceparent = record.trace_id.empty() ? std::string_view() : traceparent;
    record.path = state.path;

    // Router: 404, 405 with Allow, OPTIONS answered here.
    MatchOutcome outcome = worker_.routes().router().match(record.method, state.path, &state.match);
    if (outcome != MatchOutcome::kFound) {
        answer_and_observe(id,
                           route_miss_response(outcome, state.match, record.method == Method::kOptions,
                                               worker_.options().fastapi_route_errors),
                           ctx, record);
        return;
    }
    record.route_key = state.match.route_id;
    record.route = state.match.pattern;
    ctx.head_only = ctx.head_only || state.match.implicit_head;
    const RouteEntry& entry = worker_.routes().entry(state.match.route_id);
    if (entry.websocket) {
        // WebSocket over HTTP/2 (RFC 8441 extended CONNECT) is not offered: the client retries on HTTP/1.1.
        answer_and_observe(id, problem_response({400, "WebSocket routes need an HTTP/1.1 upgrade"}), ctx, record);
        return;
    }

    // A compressed body is decoded before validation and the handler (size and ratio capped).
    std::string decoded_body;
    if (auto refused = worker_.content_coding().decode_request_body(headers, state.body, decoded_body)) {
        answer_and_observe(id, std::move(*refused), ctx, record);
        return;
    }
    if (entry.validator) {
        std::string error_body;
        if (!entry.validator->validate(state, &error_body)) {
            answer_and_observe(
                id, validation_failure_response(std::move(error_body), worker_.options().validation_problem_json), ctx,
                record);
            return;
        }
    }
    if (entry.async) {
        dispatch_async(id, entry.async, state, record, ctx.head_only);
        return;
    }
    Request request(&state);
    Response response;
    try {
        response = entry.sync(request);
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("handler for ") + entry.pattern + " threw: " + e.what());
        response = problem_response({500, "the handler failed"});
    } catch (...) {
        base::log_message(base::LogLevel::kError, "handler for " + entry.pattern + " threw a non-exception");
        response = problem_response({500, "the handler failed"});
    }
    worker_.content_coding().compress_response(headers, response);
    answer_and_observe(id, std::move(response), ctx, record);
}

void H2Session::dispatch_async(h2::StreamId id, const AsyncHandler& handler, slipstream::detail::RequestState& state,
                               const RequestRecord& record, bool head_only) {
    auto pending = std::make_shared<slipstream::detail::PendingResponse>();
    pending->loop = worker_.loop_ref();
    pending->connection = &connection_;
    pending->request = std::move(state);
    pending->request.detach();
    slipstream::detail::PendingResponse* raw = pending.get();
    pending->handler_timer.set_callback([this, raw] { on_handler_timeout(*raw); });
    worker_.loop().schedule_after(pending->handler_timer,
                                  std::int64_t{worker_.options().handler_timeout_ms} * base::kNanosPerMilli);
    // The record's views move to the detached copy.
    const slipstream::detail::RequestState& kept = pending->request;
    AsyncStream a;
    a.id = id;
    a.pending = pending;
    a.record = record;
    a.record.method_text = kept.method;
    a.record.path = kept.path;
    a.record.request_id = kept.request_id;
    a.record.trace_id = kept.trace_id;
    a.head_only = head_only;
    async_.emplace(raw, std::move(a));
    by_stream_[id] = raw;
    worker_.metrics().in_flight.inc();
    Request request(&pending->request);
    try {
        handler(request, Responder(pending));
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("async handler threw: ") + e.what());
    } catch (...) {
        base::log_message(base::LogLevel::kError, "async handler threw a non-exception");
    }
    // A Responder dropped unanswered posts a 500, as on HTTP/1.1.
}

}  // namespace slipstream::server
