// RequestPipeline: the protocol-independent stages of a request, shared by HTTP/1.1 and HTTP/2.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "http/h1/header.h"
#include "http/h1/request_head.h"
#include "net/socket_address.h"
#include "policy/ratelimit/rate.h"
#include "router/method.h"
#include "server/conn/pending_response.h"
#include "server/conn/route_table.h"
#include "server/conn/worker.h"
#include "server/core/problem.h"
#include "slipstream/response.h"

namespace slipstream::server {

/// One request as its protocol parsed it. Views must live until the request was dispatched.
struct RequestInput {
    std::string_view method;
    Method method_id = Method::kOther;  // the router's method
    std::string_view target;            // path and query as sent
    std::string_view path;              // raw (percent-encoded) path
    std::string_view query;
    std::span<const http::h1::Header> headers;  // names in any case (HTTP/2: lowercase)
    std::string_view body;
    http::h1::Version version = http::h1::Version::kHttp11;
    bool http2 = false;
    const net::SocketAddress* peer = nullptr;  // the client
    std::string_view client_request_id;        // X-Request-ID as sent (checked before use)
    std::string_view traceparent;              // as sent (checked before use)
    bool content_encoding = true;              // false: `headers` hold no Content-Encoding (nothing to decode)
};

/// Sets `client_request_id`, `traceparent` and `content_encoding` from `input.headers` in one pass (names in
/// any case).
void find_request_fields(RequestInput& input);

/// What the protocol does with a request after RequestPipeline::route().
enum class NextStep {
    kAnswer,          // send `PipelineRequest::answer` (404/405/OPTIONS, 413/415/400 body decoding, 422)
    kAnswerAndClose,  // as kAnswer; HTTP/1.1 closes the connection (a path that does not decode)
    kWebSocket,       // a WebSocket route: HTTP/1.1 upgrades, HTTP/2 opens it on an extended CONNECT (RFC 8441)
    kSync,            // call RequestPipeline::call()
    kAsync,           // RequestPipeline::detach(), register the answer's place, RequestPipeline::call_async()
};

/// One request on its way through the pipeline, on the protocol's stack while it is dispatched. The
/// record and the state may view `id_buf` and `decoded_body`, so it is neither copied nor moved.
struct PipelineRequest {
    PipelineRequest() = default;
    PipelineRequest(const PipelineRequest&) = delete;
    PipelineRequest& operator=(const PipelineRequest&) = delete;

    RequestRecord record;                    // metrics and access log
    slipstream::detail::RequestState state;  // what the handler sees
    const RouteEntry* entry = nullptr;       // the matched route (kWebSocket, kSync, kAsync)
    bool head_only = false;                  // HEAD (or a GET route answering HEAD): no body on the wire
    Response answer;                         // kAnswer, kAnswerAndClose
    std::string decoded_body;                // a Content-Encoding body, decoded
    char id_buf[32];                         // a generated request id
    // Set when the shared rate-limit store decides the request (then NextStep::kAsync): call_async() asks it first.
    std::string shared_key;
    const policy::ratelimit::Rate* shared_rate = nullptr;
};

/// The stages every request takes, whatever its protocol: request id and trace context, path decoding, CORS
/// preflights (when CORS is on), the router (404, 405 with Allow, OPTIONS; the builtin routes are routes),
/// request-body decoding (Content-Encoding, size and ratio capped), RouteSpec validation (422), the handler
/// (synchronous, or asynchronous with a deadline), response compression, the CORS fields of every answer (when
/// CORS is on), stream heads (compression, SSE heartbeats) and the metrics + access-log record. The protocols keep
/// their framing, errors before a request exists, and where an answer waits (HTTP/1.1 slots, HTTP/2 streams). A
/// view over the worker: costs nothing to make. Loop thread only; never allocates on the `GET /hello` path beyond
/// what the handler does.
class RequestPipeline {
  public:
    explicit RequestPipeline(Worker& worker) : worker_(worker) {}

    /// Runs the stages before the handler and fills `req` (record, state, entry, head_only, answer). With CORS
    /// on, a preflight is answered here (kAnswer) and the engine's own answers carry the CORS fields.
    NextStep route(const RequestInput& input, PipelineRequest& req);

    /// Calls the synchronous handler (an exception becomes a logged 500), compresses its answer and adds the
    /// CORS fields. A static body (Response::static_body) left uncompressed is copied into `body` unless
    /// `static_body_ok` (the protocol's encoder reads body_bytes()).
    Response call(PipelineRequest& req, bool static_body_ok = false);

    /// Asynchronous handlers, step zero: a place among the process's handlers running. Empty past
    /// max_handlers_in_flight (counted in slipstream_handlers_refused_total): the protocol refuses the request
    /// (HTTP/1.1: 503 with Retry-After; HTTP/2: RST_STREAM REFUSED_STREAM). Moved into the PendingResponse.
    HandlerCount::Ticket admit();
    /// The answer to a request admit() refused: 503 with Retry-After.
    static Response overloaded();
    /// Asynchronous handlers, first half: the pending answer, owning a detached copy of the request, linked to
    /// `sink` (the protocol keeps the link where the answer waits); the record's views move to that copy. The
    /// protocol then sets `handler_timer`'s callback and records where the answer goes before call_async().
    SinkLink detach(PipelineRequest& req, ResponseSink& sink);
    /// Second half: arms the handler deadline, counts the request in flight and calls the handler. A
    /// Responder dropped unanswered (also when the handler threw) posts a 500 by itself.
    void call_async(const PipelineRequest& req, const std::shared_ptr<slipstream::detail::PendingResponse>& pending);

    /// An asynchronous complete answer arrived: stops the handler deadline, compresses it, adds the CORS fields
    /// and copies a static body into `body`.
    void finish_response(slipstream::detail::PendingResponse& pending, Response& response);
    /// A streamed answer's head arrived: stops the handler deadline; compression and SSE heartbeats start
    /// (StreamControl::begin); the CORS fields are added. `valid`: the protocol's encoder accepts the head.
    void begin_stream(slipstream::detail::PendingResponse& pending, Response& head, bool valid);

    /// Adds the CORS fields to an answer to a request with these fields (the protocols' own answers to a
    /// request, e.g. the handler deadline's 504). Nothing while CORS is off.
    void add_cors_fields(std::span<const http::h1::Header> request_headers, Response& response) {
        if (worker_.cors() != nullptr) [[unlikely]]
            apply_cors(request_headers, response);
    }

    /// Records an answered request in the metrics and the access log.
    void observe(const RequestRecord& record, int status, std::size_t response_bytes, const net::SocketAddress& peer) {
        worker_.observe(record, status, response_bytes, peer);
    }

  private:
    // The router and what follows it (body decoding, validation).
    NextStep route_match(const RequestInput& input, PipelineRequest& req);
    // route_match() with CORS on: a preflight is answered instead; the engine's answers get the CORS fields.
    NextStep route_cors(const policy::cors::CorsPolicy& policy, const RequestInput& input, PipelineRequest& req);
    void apply_cors(std::span<const http::h1::Header> request_headers, Response& response) const;
    // Authentication and the rate limit of a matched, non-public route: false with the 401/429 in req.answer;
    // true with the principal in req.state.
    bool admit(AccessPolicy& access, const RequestInput& input, PipelineRequest& req);
    // call_async() of a request the shared rate-limit store decides: the store first, then 429/503 or the handler.
    void call_after_shared_limit(const PipelineRequest& req,
                                 const std::shared_ptr<slipstream::detail::PendingResponse>& pending);

    Worker& worker_;
};

/// An engine error as a Response (problem+json), with an Allow field when given.
Response problem_response(const HttpError& error, std::string_view allow = {});

}  // namespace slipstream::server
