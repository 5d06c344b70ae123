// LlmProxy (include/slipstream/llm_proxy.h): the upstream client, calls, and the route that streams their events.
#include "slipstream/llm_proxy.h"

#include <optional>
#include <stdexcept>

#include "agent/llm_proxy/proxy_call.h"
#include "agent/llm_proxy/upstream_request.h"
#include "agent/structured/compiled_schema.h"
#include "json/writer.h"
#include "slipstream/sse.h"
#include "store/http/shared_client.h"
#include "store/http/url.h"

namespace slipstream {

namespace lp = agent::llm_proxy;

// ---- StructuredSchema ----

struct StructuredSchema::Impl {
    std::string text;
    std::shared_ptr<const agent::structured::CompiledSchema> compiled;
};

StructuredSchema::StructuredSchema() : impl_(std::make_unique<Impl>()) {}
StructuredSchema::~StructuredSchema() = default;

std::shared_ptr<const StructuredSchema> StructuredSchema::compile(std::string_view schema_json) {
    auto compiled = agent::structured::CompiledSchema::create(schema_json);
    if (!compiled.is_ok()) throw std::invalid_argument("schema: " + compiled.status().message());
    std::shared_ptr<StructuredSchema> s(new StructuredSchema());
    s->impl_->text = std::string(schema_json);
    s->impl_->compiled = std::move(compiled).value();
    return s;
}

const std::string& StructuredSchema::json() const {
    return impl_->text;
}

// ---- LlmCall ----

struct LlmCall::State {
    std::shared_ptr<lp::ProxyCall> call;
};

void LlmCall::cancel() {
    state_->call->cancel();
}
void LlmCall::pause() {
    state_->call->pause();
}
void LlmCall::resume() {
    state_->call->resume();
}
bool LlmCall::done() const {
    return state_->call->done();
}

// ---- LlmProxy ----

struct LlmProxy::Impl {
    LlmUpstreamOptions options;
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;  // every upstream request's fields
    std::unique_ptr<store::http::SharedClient> client;
    std::shared_ptr<lp::ProxyCounters> counters = std::make_shared<lp::ProxyCounters>();
    std::vector<const App*> metrics_on;  // apps whose /metrics show the counters

    // A call not sent yet: the caller may tie it to its own lifetime (a responder's on_cancel) before send().
    std::pair<std::shared_ptr<LlmCall>, std::shared_ptr<lp::ProxyCall>> make(
        const std::shared_ptr<const StructuredSchema>& schema, LlmCallOptions options, LlmCallHandlers handlers) {
        auto call =
            std::make_shared<lp::ProxyCall>(schema->impl().compiled, std::move(options), std::move(handlers), counters);
        auto state = std::make_shared<LlmCall::State>();
        state->call = call;
        return {std::make_shared<LlmCall>(std::move(state)), std::move(call)};
    }

    void send(lp::ProxyCall& call, std::string_view request_json, const StructuredSchema& schema,
              const LlmCallOptions& options) {
        lp::UpstreamBodyOptions bo{.default_model = options.default_model,
                                   .add_response_format = options.add_response_format,
                                   .strict = options.strict,
                                   .schema_name = options.schema_name};
        base::Result<std::string> body = lp::build_upstream_body(request_json, schema.impl().compiled->document(), bo);
        if (!body.is_ok()) {
            call.refuse_now(400, lp::error_body(body.status().message(), "invalid_request_error", "invalid_request"));
            return;
        }
        base::Result<lp::ToolSchemas> tools = lp::compile_tool_schemas(request_json);
        if (!tools.is_ok()) {
            call.refuse_now(400, lp::error_body(tools.status().message(), "invalid_request_error", "invalid_request"));
            return;
        }
        if (!tools->empty()) call.set_tools(std::move(tools).value());
        store::http::Request r;
        r.method = "POST";
        r.url = url;
        r.headers = headers;
        r.body = std::move(body).value();
        r.idempotent = false;
        r.timeouts.first_byte_ns = std::int64_t{options_ms(this->options.first_byte_timeout_ms)};
        r.timeouts.idle_ns = std::int64_t{options_ms(this->options.idle_timeout_ms)};
        r.timeouts.total_ns = std::int64_t{options_ms(this->options.total_timeout_ms)};
        call.send(*client, std::move(r));
    }

    static std::int64_t options_ms(std::uint32_t ms) { return std::int64_t{ms} * 1'000'000; }
};

LlmProxy::LlmProxy(LlmUpstreamOptions options) : impl_(std::make_shared<Impl>()) {
    Impl& i = *impl_;
    i.options = std::move(options);
    i.url = store::http::join_url(i.options.base_url, i.options.chat_path);
    auto url = store::http::parse_url(i.url);
    if (!url.is_ok()) throw std::invalid_argument("llm proxy: base_url: " + url.status().message());
    i.headers.emplace_back("Content-Type", "application/json");
    i.headers.emplace_back("Accept", "text/event-stream");
    if (!i.options.api_key.empty()) i.headers.emplace_back("Authorization", "Bearer " + i.options.api_key);
    for (const auto& h : i.options.headers)
        i.headers.push_back(h);
    store::http::SharedClientOptions co;
    co.thread_name = "ss-llm-proxy";
    co.client.max_connections_per_origin = std::max<std::size_t>(i.options.max_connections, 1);
    co.client.max_waiting_per_origin = i.options.max_waiting;
    co.client.connect_timeout_ns = Impl::options_ms(i.options.connect_timeout_ms);
    co.client.queue_timeout_ns = Impl::options_ms(i.options.first_byte_timeout_ms);
    co.client.max_retries = 0;  // a chat completion is not idempotent (and costs money)
    // HTTP/2 streams the upstream refused unprocessed are still sent again (client default).
    co.client.http2 = i.options.http2 == UpstreamHttp2::kOff              ? store::http::Http2Mode::kOff
                      : i.options.http2 == UpstreamHttp2::kPriorKnowledge ? store::http::Http2Mode::kPriorKnowledge
                                                                          : store::http::Http2Mode::kAuto;
    co.client.h2.max_concurrent_streams = std::max<std::uint32_t>(i.options.max_streams, 1);
    co.client.tls.verify = i.options.verify_tls;
    co.client.tls.ca_file = i.options.ca_file;
    co.client.user_agent = "slipstream-llm-proxy";
    auto client = store::http::SharedClient::create(std::move(co));
    if (!client.is_ok()) throw std::invalid_argument("llm proxy: " + client.status().message());
    i.client = std::move(client).value();
    // Header fields are checked by the client at each request; check them once here so a bad one fails now.
    for (const auto& [name, value] : i.options.headers) {
        bool ok = !name.empty() && name.find_first_of(" \t\r\n:") == std::string::npos &&
                  value.find_first_of("\r\n") == std::string::npos && value.find('\0') == std::string::npos;
        if (!ok) throw std::invalid_argument("llm proxy: bad header field '" + name + "'");
    }
}

LlmProxy::~LlmProxy() = default;

const LlmUpstreamOptions& LlmProxy::options() const {
    return impl_->options;
}

LlmProxyStats LlmProxy::stats() const {
    const lp::ProxyCounters& c = *impl_->counters;
    return LlmProxyStats{.started = c.started.load(),
                         .refused = c.refused.load(),
                         .completed = c.completed.load(),
                         .invalid = c.invalid.load(),
                         .failed = c.failed.load(),
                         .cancelled = c.cancelled.load(),
                         .active = c.active.load()};
}

std::shared_ptr<LlmCall> LlmProxy::start(std::string request_json, std::shared_ptr<const StructuredSchema> schema,
                                         LlmCallOptions options, LlmCallHandlers handlers) {
    if (!schema) throw std::invalid_argument("llm proxy: no schema");
    auto [handle, call] = impl_->make(schema, options, std::move(handlers));
    impl_->send(*call, request_json, *schema, options);
    return handle;
}

namespace {

// One route request: the client's responder, then (once the upstream accepted) its event stream or NDJSON stream.
// Used on the proxy's client thread only, except the refusal of a bad request (the I/O thread, before any event).
struct RouteSink {
    Responder responder;
    std::optional<EventStream> sse;
    bool ndjson = false;
    // Strong: the call's handlers hold this sink, and the call lets its handlers go when it ends (whatever the
    // reason), which ends this cycle.
    std::shared_ptr<LlmCall> call;
    std::string line;

    RouteSink(Responder r, bool nd) : responder(std::move(r)), ndjson(nd) {}

    void refuse(const LlmRefusal& f) {
        Response resp = Response::json(f.body, f.status);
        if (!f.retry_after.empty()) resp.headers.emplace_back("Retry-After", f.retry_after);
        responder.send(std::move(resp));
    }
    void start() {
        if (!ndjson) {
            sse.emplace(std::move(responder));
            return;
        }
        Response head(200);
        head.content_type = "application/x-ndjson";
        head.headers.emplace_back("Cache-Control", "no-cache");
        head.headers.emplace_back("X-Accel-Buffering", "no");
        responder.start_stream(std::move(head));
    }
    void event(const LlmStreamEvent& e) {
        bool ok;
        if (sse) {
            ok = sse->send(e.json, e.kind);
        } else {
            line.clear();
            line.append("{\"type\":\"").append(e.kind).append("\",\"value\":").append(e.json).append("}\n");
            ok = responder.write(line);
        }
        const std::shared_ptr<LlmCall>& c = call;
        if (!ok) {
            if (c) c->cancel();  // the client went away
            return;
        }
        if (e.last()) {
            if (sse) {
                sse->close();
            } else {
                responder.end();
            }
            return;
        }
        bool writable = sse ? sse->writable() : responder.writable();
        if (!writable && c) {
            // The client reads slower than the upstream writes: hold the upstream back until it caught up.
            c->pause();
            auto resume = [weak = std::weak_ptr<LlmCall>(c)] {
                if (auto again = weak.lock()) again->resume();
            };
            if (sse) {
                sse->on_writable(resume);
            } else {
                responder.on_writable(resume);
            }
        }
    }
};

}  // namespace

AsyncHandler LlmProxy::handler(LlmRouteOptions route) {
    std::shared_ptr<const StructuredSchema> schema = StructuredSchema::compile(route.schema);
    std::shared_ptr<Impl> impl = impl_;
    return [impl, schema, route = std::move(route)](Request& req, Responder responder) {
        std::string_view body = req.body();
        auto sink = std::make_shared<RouteSink>(std::move(responder), route.format == StructuredFormat::kNdjson);
        if (body.size() > route.max_request_bytes) {
            sink->refuse(LlmRefusal{.status = 413,
                                    .body = lp::error_body("the request body is larger than " +
                                                               std::to_string(route.max_request_bytes) + " bytes",
                                                           "invalid_request_error", "request_too_large"),
                                    .retry_after = {}});
            return;
        }
        LlmCallHandlers h;
        h.on_refused = [sink](const LlmRefusal& f) { sink->refuse(f); };
        h.on_start = [sink] { sink->start(); };
        h.on_event = [sink](const LlmStreamEvent& e) { sink->event(e); };
        auto [handle, call] = impl->make(schema, route.call, std::move(h));
        sink->call = handle;
        // A client that goes away (or a server that cuts the request) stops the upstream call.
        sink->responder.on_cancel([weak = std::weak_ptr<LlmCall>(handle)] {
            if (auto c = weak.lock()) c->cancel();
        });
        impl->send(*call, body, *schema, route.call);
    };
}

void LlmProxy::mount(App& app, std::string_view pattern, LlmRouteOptions route) {
    app.route_async("POST", pattern, handler(std::move(route)));
    Impl& i = *impl_;
    for (const App* a : i.metrics_on)
        if (a == &app) return;
    i.metrics_on.push_back(&app);
    std::shared_ptr<lp::ProxyCounters> c = i.counters;
    try {
        app.counter_metric("slipstream_llm_proxy_started_total", "LLM proxy calls sent upstream",
                           [c] { return static_cast<double>(c->started.load()); });
        app.counter_metric("slipstream_llm_proxy_completed_total", "LLM proxy calls that streamed a valid document",
                           [c] { return static_cast<double>(c->completed.load()); });
        app.counter_metric("slipstream_llm_proxy_invalid_total",
                           "LLM proxy calls stopped because the output could not satisfy the schema",
                           [c] { return static_cast<double>(c->invalid.load()); });
        app.counter_metric("slipstream_llm_proxy_failed_total", "LLM proxy calls whose upstream failed mid-stream",
                           [c] { return static_cast<double>(c->failed.load()); });
        app.counter_metric("slipstream_llm_proxy_refused_total",
                           "LLM proxy calls answered with an error status before streaming",
                           [c] { return static_cast<double>(c->refused.load()); });
        app.counter_metric("slipstream_llm_proxy_cancelled_total", "LLM proxy calls stopped by their client",
                           [c] { return static_cast<double>(c->cancelled.load()); });
        app.gauge_metric("slipstream_llm_proxy_active", "LLM proxy calls in flight",
                         [c] { return static_cast<double>(c->active.load()); });
    } catch (const std::invalid_argument&) {
        // Another proxy mounted on this app first: its counters are the ones shown.
    }
}

}  // namespace slipstream
