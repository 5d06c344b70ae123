// LlmProxy: routes that call an OpenAI-compatible upstream and stream its output validated against a JSON Schema.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slipstream/app.h"

namespace slipstream {

/// Where and how to reach the upstream (OpenAI, vLLM, llama.cpp's server, our own ModelServer, ...).
/// How the proxy talks to its upstream.
enum class UpstreamHttp2 : std::uint8_t {
    kAuto,            ///< https: HTTP/2 when the upstream chooses it by ALPN, else HTTP/1.1; http: HTTP/1.1
    kOff,             ///< HTTP/1.1 only
    kPriorKnowledge,  ///< HTTP/2 without asking (h2c over plain TCP)
};

struct LlmUpstreamOptions {
    /// "https://api.openai.com", "http://127.0.0.1:8000", or with a path prefix ("https://host/openai").
    std::string base_url;
    /// Appended to base_url for every call.
    std::string chat_path = "/v1/chat/completions";
    /// Sent as "Authorization: Bearer <key>" (empty: no Authorization). Only from here: a client's own
    /// Authorization (or any other client field) is never forwarded.
    std::string api_key;
    /// More fields on every upstream request ("OpenAI-Organization", ...).
    std::vector<std::pair<std::string, std::string>> headers;
    /// TLS: the upstream's certificate is checked against the system CA store (or ca_file) and its name.
    bool verify_tls = true;
    std::string ca_file;
    std::uint32_t connect_timeout_ms = 10'000;     // resolving, TCP and TLS of one connection
    std::uint32_t first_byte_timeout_ms = 60'000;  // until the upstream's response head (also bounded by the
                                                   // server's handler_timeout_ms: the client gets 504 either way)
    std::uint32_t idle_timeout_ms = 60'000;        // between two pieces of the upstream's stream
    std::uint32_t total_timeout_ms = 0;            // one whole call; 0: none
    std::size_t max_connections = 64;              // to the upstream, at once (HTTP/1.1); more calls wait
    /// HTTP/2: one connection, calls multiplexed as streams (at most max_streams at once; more calls wait).
    UpstreamHttp2 http2 = UpstreamHttp2::kAuto;
    std::uint32_t max_streams = 100;
    std::size_t max_waiting = 1024;  // calls waiting for a connection; then 502
};

/// A JSON Schema compiled once (draft 2020-12 unless its `$schema` says draft 7); immutable and shared by the calls
/// validated against it.
class StructuredSchema {
  public:
    /// Throws std::invalid_argument with the parser's or the compiler's message.
    static std::shared_ptr<const StructuredSchema> compile(std::string_view schema_json);
    ~StructuredSchema();
    StructuredSchema(const StructuredSchema&) = delete;
    StructuredSchema& operator=(const StructuredSchema&) = delete;
    /// The schema document as given.
    const std::string& json() const;

    struct Impl;
    const Impl& impl() const { return *impl_; }

  private:
    StructuredSchema();
    std::unique_ptr<Impl> impl_;
};

/// What the events carry: the value so far after each piece ("partial"), or each piece of text ("delta").
enum class StructuredEvents : unsigned char { kPartial, kDelta };
/// How a route writes the events: `text/event-stream` (event name = kind, data = the payload) or
/// `application/x-ndjson` (one {"type": kind, "value": payload} per line).
enum class StructuredFormat : unsigned char { kSse, kNdjson };

/// One upstream call.
struct LlmCallOptions {
    StructuredEvents events = StructuredEvents::kPartial;
    /// The request's "model" when it names none (empty: the request must name one, or the upstream decides).
    std::string default_model;
    /// A request without "response_format" gets {"type": "json_schema", "json_schema": {"name": schema_name,
    /// "schema": <the schema>, "strict": strict}}, so the upstream constrains its output to the schema.
    bool add_response_format = true;
    bool strict = true;
    std::string schema_name = "output";
    /// The document's bytes; past it the call ends with an error event (keyword "maxBytes").
    std::size_t max_output_bytes = 1 << 20;
};

/// One event of a validated stream, in order: any number of "partial" (the value so far, incomplete strings and
/// containers closed where they stand) or "delta" (the piece as a JSON string), then exactly one of "complete" (the
/// whole document, valid) or "error" ({"offset", "pointer", "keyword", "message"}: the byte offset into the
/// document that proved it invalid, the JSON pointer of the value, the schema keyword that can no longer be
/// satisfied, or "json" for a syntax error, "maxBytes" past max_output_bytes, "refusal" when the model refused,
/// "upstream" when the upstream failed mid-stream: its error object, a lost connection, a stall, a stream cut
/// short; pointers under "/tool_calls/<i>/arguments" for a tool call's arguments, keyword "tool" for a function the
/// request does not name). Before the last: "usage" (the upstream's token counts) when it sent them. When the
/// request named tools and the model called some, the last event is "tool_calls" instead of "complete":
/// {"tool_calls": [{"index", "id", "name", "arguments"}], "content": the document when there was content too}.
struct LlmStreamEvent {
    std::string_view kind;
    std::string_view json;
    /// The final event: "complete", "error" or "tool_calls".
    bool last() const { return kind == "complete" || kind == "error" || kind == "tool_calls"; }
};

/// Why a call ended before any event: what to answer the client. `status`: 400 (the request is not a JSON object,
/// asks for n > 1, ...), 413 (too large), the upstream's own 400/404/409/413/422/429 passed through, 502 (the
/// upstream could not be reached, failed TLS verification, answered another status or not an event stream), 504
/// (the upstream did not answer in time). `body`: an OpenAI-style {"error": {"message", "type", "code", ...}}.
struct LlmRefusal {
    int status = 502;
    std::string body;
    std::string retry_after;  // the upstream's Retry-After (429, 503), to pass on; empty when none
};

/// What a call tells its caller. Exactly one of: on_refused once; or on_start once (the upstream accepted: 2xx)
/// then on_event for every event, the last one being "complete", "error" or "tool_calls" (LlmStreamEvent::last). They
/// run on the proxy's client thread (one thread for all calls of a proxy: keep them short), except a refusal decided
/// before the upstream is called (a bad request), which runs at once on the calling thread, inside start(). After
/// cancel() nothing more runs.
struct LlmCallHandlers {
    std::function<void(const LlmRefusal& refusal)> on_refused;
    std::function<void()> on_start;
    std::function<void(const LlmStreamEvent& event)> on_event;
};

/// A call in flight. Any thread, any number of times, also after it ended.
class LlmCall {
  public:
    /// Stops the call: the upstream connection is closed (the upstream stops generating), no handler runs after.
    void cancel();
    /// Back-pressure: stop reading the upstream until resume() (TCP holds it back).
    void pause();
    void resume();
    /// The last event (or the refusal) was delivered, or the call was cancelled.
    bool done() const;

    struct State;
    explicit LlmCall(std::shared_ptr<State> state) : state_(std::move(state)) {}

  private:
    std::shared_ptr<State> state_;
};

/// A route's upstream call and what it streams to its client.
struct LlmRouteOptions {
    /// The JSON Schema the output must satisfy (JSON text).
    std::string schema;
    StructuredFormat format = StructuredFormat::kSse;
    LlmCallOptions call;
    /// The client's request body (an OpenAI chat completion request); larger: 413.
    std::size_t max_request_bytes = 1 << 20;
};

/// Counters of a proxy's calls, from any thread.
struct LlmProxyStats {
    std::uint64_t started = 0;    // calls sent upstream
    std::uint64_t refused = 0;    // ended before any event (bad request, upstream unreachable or non-2xx, timeout)
    std::uint64_t completed = 0;  // ended with a valid document
    std::uint64_t invalid = 0;    // ended because the output could not satisfy the schema
    std::uint64_t failed = 0;     // the upstream failed mid-stream
    std::uint64_t cancelled = 0;  // stopped by the caller (a client that went away)
    std::uint64_t active = 0;     // in flight
};

/// One upstream, its connection pool and the client thread the calls run on (its own event loop: the server's I/O
/// threads never wait on the upstream). The routes and calls share it.
///
///     LlmUpstreamOptions up;
///     up.base_url = "https://api.openai.com";
///     up.api_key = std::getenv("OPENAI_API_KEY");
///     LlmProxy proxy(up);
///     LlmRouteOptions route;
///     route.schema = R"({"type":"object","required":["name"],...})";
///     proxy.mount(app, "/v1/extract", route);
///
/// A POST to the route takes an OpenAI chat completion request (messages, model, temperature, ...), forwards it with
/// "stream": true (and response_format, unless the request has one), and validates
/// `choices[0].delta.content` as it streams against the schema: the client gets the events (SSE or NDJSON, 200)
/// as they come, or, when the upstream fails before streaming, an error status with an OpenAI-style body. The
/// upstream call is cut as soon as the output cannot satisfy the schema, and when the client goes away.
class LlmProxy {
  public:
    /// Throws std::invalid_argument for a base_url that is not an absolute http(s) URL, bad header fields, or a
    /// CA file that cannot be loaded.
    explicit LlmProxy(LlmUpstreamOptions options);
    /// Calls in flight end (a refusal or an "upstream" error event) once the routes let go of the proxy too (they
    /// share it); then its thread is joined, so the last owner must not let go from inside a handler.
    ~LlmProxy();
    LlmProxy(const LlmProxy&) = delete;
    LlmProxy& operator=(const LlmProxy&) = delete;

    /// Registers POST `pattern` on `app` (before it starts). Throws std::invalid_argument for a schema that does not
    /// compile or a route clash.
    void mount(App& app, std::string_view pattern, LlmRouteOptions route);
    /// The same handler, to register as you like (App::route_async).
    AsyncHandler handler(LlmRouteOptions route);

    /// One call, for code that streams the events its own way (bindings, handlers that feed another protocol):
    /// `request_json` is the chat completion request, sent as described for routes; `handlers` hear the outcome.
    std::shared_ptr<LlmCall> start(std::string request_json, std::shared_ptr<const StructuredSchema> schema,
                                   LlmCallOptions options, LlmCallHandlers handlers);

    LlmProxyStats stats() const;
    const LlmUpstreamOptions& options() const;

    struct Impl;

  private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace slipstream
