// RequestPipeline: request id, path, router, body decoding, validation, handlers, compression, stream heads.
#include "server/conn/request_pipeline.h"

#include <exception>

#include "base/log.h"
#include "http/h1/decode.h"
#include "http/h1/header.h"
#include "policy/cors/cors_policy.h"
#include "server/conn/access_policy.h"
#include "server/conn/route_miss.h"
#include "server/conn/validation_failure.h"
#include "server/encode/response_encoder.h"
#include "server/observe/request_ids.h"
#include "slipstream/request.h"
#include "slipstream/responder.h"

namespace slipstream::server {

namespace h1 = http::h1;

void find_request_fields(RequestInput& input) {
    bool content_encoding = false;
    for (const h1::Header& h : input.headers) {
        if (h.name.size() == 12 && h1::iequals(h.name, "x-request-id"))
            input.client_request_id = h.value;
        else if (h.name.size() == 11 && h1::iequals(h.name, "traceparent"))
            input.traceparent = h.value;
        else if (h.name.size() == 16 && h1::iequals(h.name, "content-encoding"))
            content_encoding = true;
    }
    input.content_encoding = content_encoding;
}

namespace {

// The synchronous handler's answer, built in place (no move into a default Response); an exception
// becomes a logged 500.
Response call_sync(const RouteEntry& entry, Request& request) {
    try {
        return entry.sync(request);
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("handler for ") + entry.pattern + " threw: " + e.what());
    } catch (...) {
        base::log_message(base::LogLevel::kError, "handler for " + entry.pattern + " threw a non-exception");
    }
    return problem_response({500, "the handler failed"});
}

// A handler of either kind on a detached request, answered through its Responder.
void call_handler(const RouteEntry& entry, const std::shared_ptr<slipstream::detail::PendingResponse>& pending) {
    Request request(&pending->request);
    if (entry.sync) {
        Responder(pending).send(call_sync(entry, request));
        return;
    }
    try {
        entry.async(request, Responder(pending));
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("async handler threw: ") + e.what());
    } catch (...) {
        base::log_message(base::LogLevel::kError, "async handler threw a non-exception");
    }
}

}  // namespace

Response problem_response(const HttpError& error, std::string_view allow) {
    Response r(error.status);
    r.body = problem_body(error);
    r.content_type = ContentType::constant(kProblemContentType);
    if (!allow.empty()) r.headers.emplace_back("Allow", std::string(allow));
    return r;
}

// Inlined into route(): the path every request takes while CORS is off stays one call deep.
[[gnu::always_inline]] inline NextStep RequestPipeline::route_match(const RequestInput& in, PipelineRequest& req) {
    RequestRecord& record = req.record;
    slipstream::detail::RequestState& state = req.state;
    // Router: 404, 405 with Allow and OPTIONS are answered here.
    const RouteTable& routes = worker_.routes();
    MatchOutcome outcome = routes.router().match(record.method, state.path, &state.match);
    if (outcome != MatchOutcome::kFound) {
        req.answer = route_miss_response(outcome, state.match, record.method == Method::kOptions,
                                         worker_.options().fastapi_route_errors);
        return NextStep::kAnswer;
    }
    record.route_key = state.match.route_id;
    record.route = state.match.pattern;
    req.head_only = req.head_only || state.match.implicit_head;
    req.entry = &routes.entry(state.match.route_id);
    // Authentication and rate limits: after the router (404/405 stay as they are; public routes are known by
    // their template), before the body is decoded or validated. Off: this one branch.
    if (AccessPolicy* access = worker_.access(); access != nullptr) [[unlikely]] {
        if (!admit(*access, in, req)) return NextStep::kAnswer;
    }
    if (req.entry->websocket) return NextStep::kWebSocket;

    // FastAPI's max_body_size (RouteSpec::max_body_bytes): the body as sent, before it is decoded. Starlette's
    // answers: plain text when the Content-Length announced it, else its HTTPException's JSON.
    if (req.entry->validator && state.body.size() > req.entry->validator->max_body_bytes()) [[unlikely]] {
        bool announced = !h1::find_header(in.headers, "content-length").empty();
        req.answer = announced ? Response::text("Content Too Large", 413)
                               : Response::json(R"({"detail":"Content Too Large"})", 413);
        return NextStep::kAnswer;
    }

    // A compressed body is decoded before validation and the handler (size and ratio capped); the request
    // views `req.decoded_body` until it is dispatched. Without a Content-Encoding field there is nothing to
    // decode or refuse (the call would scan the fields again).
    if (in.content_encoding) {
        if (auto refused = worker_.content_coding().decode_request_body(in.headers, state.body, req.decoded_body)) {
            req.answer = std::move(*refused);
            return NextStep::kAnswer;
        }
    }
    if (req.entry->validator) {
        std::string error_body;
        if (!req.entry->validator->validate(state, &error_body)) {
            // Invalid input never reaches the handler: FastAPI's 422 body (or problem+json).
            req.answer = validation_failure_response(std::move(error_body), worker_.options().validation_problem_json);
            return NextStep::kAnswer;
        }
    }
    // A request the shared rate-limit store decides goes asynchronous: call_async() asks the store first.
    return req.entry->async || !req.shared_key.empty() ? NextStep::kAsync : NextStep::kSync;
}

NextStep RequestPipeline::route(const RequestInput& in, PipelineRequest& req) {
    RequestRecord& record = req.record;
    // The loop's reading of CLOCK_MONOTONIC when this iteration's events arrived: the request's time then
    // includes its wait behind earlier events of the same iteration, and costs no clock read of its own.
    record.start = worker_.loop().now();
    record.method = in.method_id;
    record.method_text = in.method;
    record.request_bytes = in.body.size();
    // Most requests carry neither an X-Request-ID nor a traceparent: then no call checks them.
    record.request_id = !in.client_request_id.empty() && valid_request_id(in.client_request_id)
                            ? in.client_request_id
                            : worker_.request_ids().next(req.id_buf);
    record.trace_id = in.traceparent.empty() ? std::string_view() : parse_traceparent(in.traceparent);
    record.path = in.path;
    req.head_only = in.method_id == Method::kHead;

    h1::PathDecodeResult path = h1::decode_path(in.path, worker_.path_scratch(in.path.size()));
    if (path.status != h1::DecodeStatus::kOk) {
        req.answer = problem_response({400, "invalid percent-encoding in the path"});
        add_cors_fields(in.headers, req.answer);
        return NextStep::kAnswerAndClose;
    }

    slipstream::detail::RequestState& state = req.state;
    state.method = in.method;
    state.target = in.target;
    state.path = path.path;
    state.query = in.query;
    state.body = in.body;
    state.headers = in.headers;
    state.version = in.version;
    state.http2 = in.http2;
    state.peer = in.peer;
    state.request_id = record.request_id;
    state.trace_id = record.trace_id;
    state.traceparent = record.trace_id.empty() ? std::string_view() : in.traceparent;
    record.path = state.path;

    // CORS off: this one branch is all it costs.
    if (const policy::cors::CorsPolicy* policy = worker_.cors(); policy != nullptr) [[unlikely]]
        return route_cors(*policy, in, req);
    return route_match(in, req);
}

NextStep RequestPipeline::route_cors(const policy::cors::CorsPolicy& policy, const RequestInput& in,
                                     PipelineRequest& req) {
    const policy::cors::CorsRequest fields = policy::cors::CorsRequest::scan(in.headers);
    // Before the router, so that no route needs an OPTIONS handler (Starlette's middleware sits in front of
    // its router too). An OPTIONS request that is not a preflight goes on to the router.
    if (fields.is_preflight(in.method)) {
        req.answer = policy.preflight(fields);
        return NextStep::kAnswer;
    }
    NextStep next = route_match(in, req);
    if (next == NextStep::kAnswer || next == NextStep::kAnswerAndClose) policy.apply(fields, req.answer);
    return next;
}

bool RequestPipeline::admit(AccessPolicy& access, const RequestInput& in, PipelineRequest& req) {
    slipstream::detail::RequestState& state = req.state;
    if (access.is_public(state.match.pattern)) return true;
    // JWT claims (and so a token's principal) live in the request's arena, which an asynchronous request keeps.
    if (!state.arena && access.needs_arena()) state.arena = std::make_unique<base::Arena>(1024);
    base::Arena unused(64);  // API keys need no arena: nothing is allocated from this one
    Admission admission = access.admit(in.headers, in.peer, req.record.start, state.arena ? *state.arena : unused);
    if (admission.refusal) {
        req.answer = std::move(*admission.refusal);
        return false;
    }
    state.principal = admission.principal;
    state.scopes = admission.scopes;
    state.scoped = admission.scoped;
    state.credential = std::move(admission.credential);
    if (!admission.shared_key.empty()) {
        if (req.entry->websocket) {
            // An upgrade is not held back for the store: the local limiter counts it.
            policy::ratelimit::Decision d =
                access.local_check(admission.shared_key, req.record.start, admission.shared_rate);
            if (!d.allowed) {
                req.answer = access.too_many(d);
                return false;
            }
            return true;
        }
        req.shared_key = std::move(admission.shared_key);
        req.shared_rate = admission.shared_rate;
    }
    return true;
}

void RequestPipeline::apply_cors(std::span<const h1::Header> request_headers, Response& response) const {
    worker_.cors()->apply(policy::cors::CorsRequest::scan(request_headers), response);
}

Response RequestPipeline::call(PipelineRequest& req, bool static_body_ok) {
    Request request(&req.state);
    Response response = call_sync(*req.entry, request);
    worker_.content_coding().compress_response(req.state.headers, response);
    add_cors_fields(req.state.headers, response);  // after compression: Vary gets "Origin" last, as Starlette's
    if (!static_body_ok) response.own_body();
    return response;
}

HandlerCount::Ticket RequestPipeline::admit() {
    const std::shared_ptr<HandlerCount>& handlers = worker_.handlers();
    if (!handlers) return {};
    HandlerCount::Ticket ticket = HandlerCount::try_enter(handlers);
    if (!ticket) worker_.metrics().handlers_refused.inc();
    return ticket;
}

Response RequestPipeline::overloaded() {
    Response r = problem_response({503, "too many requests in progress"});
    r.with_header("Retry-After", "1");
    return r;
}

SinkLink RequestPipeline::detach(PipelineRequest& req, ResponseSink& sink) {
    auto pending = std::make_shared<slipstream::detail::PendingResponse>();
    pending->loop = worker_.loop_ref();
    pending->request = std::move(req.state);
    pending->request.detach();
    // The record's views move to the detached copy.
    const slipstream::detail::RequestState& kept = pending->request;
    req.record.method_text = kept.method;
    req.record.path = kept.path;
    req.record.request_id = kept.request_id;
    req.record.trace_id = kept.trace_id;
    return SinkLink(std::move(pending), sink);
}

void RequestPipeline::call_async(const PipelineRequest& req,
                                 const std::shared_ptr<slipstream::detail::PendingResponse>& pending) {
    worker_.loop().schedule_after(pending->handler_timer,
                                  std::int64_t{worker_.options().handler_timeout_ms} * base::kNanosPerMilli);
    worker_.metrics().in_flight.inc();
    if (!req.shared_key.empty()) {
        call_after_shared_limit(req, pending);
        return;
    }
    Request request(&pending->request);
    try {
        req.entry->async(request, Responder(pending));
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("async handler threw: ") + e.what());
    } catch (...) {
        base::log_message(base::LogLevel::kError, "async handler threw a non-exception");
    }
}

void RequestPipeline::call_after_shared_limit(const PipelineRequest& req,
                                              const std::shared_ptr<slipstream::detail::PendingResponse>& pending) {
    const RouteEntry* entry = req.entry;
    AccessPolicy* access = worker_.access();
    access->check_shared(req.shared_key, req.shared_rate, req.record.start, [access, entry, pending](SharedResult r) {
        // The store's thread (or this one): the rest runs on the request's loop.
        pending->loop->post([access, entry, pending, r] {
            if (pending->cancelled.load() || pending->sink() == nullptr) return;  // nobody waits any more
            if (r.verdict == SharedVerdict::kUnavailable) {
                Responder(pending).send(access->store_unavailable());
                return;
            }
            if (!r.decision.allowed) {
                Responder(pending).send(access->too_many(r.decision));
                return;
            }
            call_handler(*entry, pending);
        });
    });
}

void RequestPipeline::finish_response(slipstream::detail::PendingResponse& pending, Response& response) {
    pending.handler_timer.cancel();
    worker_.content_coding().compress_response(pending.request.headers, response);
    add_cors_fields(pending.request.headers, response);
    response.own_body();  // HTTP/2 streams keep `body`
}

void RequestPipeline::begin_stream(slipstream::detail::PendingResponse& pending, Response& head, bool valid) {
    pending.handler_timer.cancel();
    pending.stream.begin(pending, head, valid, worker_.content_coding(), worker_.loop(),
                         worker_.options().sse_heartbeat_ms);
    add_cors_fields(pending.request.headers, head);
}

}  // namespace slipstream::server
