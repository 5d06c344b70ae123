// HttpTransport: the Streamable HTTP rules of the 2025-03-26, 2025-06-18 and 2025-11-25 specifications.
#include "agent/mcp/http_transport.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "agent/mcp/http_rules.h"
#include "agent/mcp/post_channel.h"
#include "agent/mcp/resource_metadata.h"

namespace slipstream::mcp::detail {

namespace {

constexpr std::string_view kSessionHeader = "Mcp-Session-Id";
constexpr std::string_view kVersionHeader = "MCP-Protocol-Version";
// The version a request without MCP-Protocol-Version is taken to speak when nothing else tells (the spec's rule).
constexpr std::string_view kDefaultVersion = "2025-03-26";

Response http_error(int status, int code, std::string_view message) {
    return Response::json(error_message("null", code, message), status);
}

// Drops what a notification-only POST produces (nothing, except a refused batch's error).
class NullChannel final : public Channel {
  public:
    void notify(std::string) override {}
    void answer(std::string) override {}
    void abandon() override {}
};

// Keeps the answer of a message handled before its session is durable (initialize with a session store).
class CaptureChannel final : public Channel {
  public:
    void notify(std::string) override {}
    void answer(std::string message) override {
        std::lock_guard lock(mu_);
        answer_ = std::move(message);
    }
    void abandon() override {}
    std::string take() {
        std::lock_guard lock(mu_);
        return std::move(answer_);
    }

  private:
    std::mutex mu_;
    std::string answer_;
};

SessionRecord record_of(const Session& s) {
    SessionRecord r;
    r.id = s.id();
    r.principal = s.principal();
    r.version = s.version();
    r.capabilities = s.client_capabilities();
    r.log_level = s.log_level();
    r.subscriptions = s.subscriptions();
    return r;
}

Response store_unavailable() {
    Response r = http_error(503, kInternalError, "Service Unavailable: the session store cannot be reached");
    r.headers.emplace_back("Retry-After", "1");
    return r;
}

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

HttpTransport::HttpTransport(ServerCore& core)
    : core_(core),
      sessions_({core.config().max_sessions, core.config().max_sessions_per_principal,
                 std::chrono::milliseconds(core.config().session_idle_ms), core.config().replay_events,
                 core.config().max_calls_per_session}) {}

HttpTransport::~HttpTransport() {
    for (auto& s : sessions_.clear())
        s->stream->close(true);
}

void HttpTransport::mount(App& app, std::string_view path) {
    const ServerConfig& config = core_.config();
    const std::optional<ResourceMetadata> metadata = resource_metadata(config, path);  // throws for bad settings
    if (!config.store_url.empty() && !config.stateless && store_ == nullptr) {
        SessionStore::Options o;
        o.url = config.store_url;
        o.connections = config.store_connections;
        o.timeout_ms = config.store_timeout_ms;
        o.idle_ms = config.session_idle_ms;
        o.max_per_principal = config.max_sessions_per_principal;
        o.event_ttl_ms = config.stream_store_ttl_ms;
        auto opened = SessionStore::open(std::move(o));
        if (!opened.is_ok()) throw std::runtime_error("MCP session store: " + opened.status().message());
        store_ = std::move(opened).value();
        process_tag_ = new_session_id().substr(0, 8) + "-";
        {
            std::lock_guard lock(signals_mu_);
            polled_ms_ = wall_ms();
        }
        std::weak_ptr<HttpTransport> weak_self = weak_from_this();
        if (config.resumable_streams && config.stream_store_events > 0) {
            stored_ = std::make_shared<StoredStreams>(
                store_, StoredStreams::Limits{.max_followed = std::size_t{config.max_sessions},
                                              .batch = 64,
                                              .ttl_ms = config.stream_store_ttl_ms});
            // Stream numbers restart with the process: the prefix keeps ids of different processes (and of this
            // one before a restart) apart. No '-' in it: an event id is "<stream>-<n>".
            stream_prefix_ = new_session_id().substr(0, 8) + ".";
            std::replace(stream_prefix_.begin(), stream_prefix_.end(), '-', '_');
            store_->watch_events([weak_self] {
                if (auto self = weak_self.lock()) self->stored_->poll();
            });
        }
        notified_ = store_->watch_signals([weak_self] {
            if (auto self = weak_self.lock()) self->poll_signals(false);
        });
        schedule_poll();
    }
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    auto route = [weak](void (HttpTransport::*fn)(Request&, Responder)) {
        return [weak, fn](Request& req, Responder responder) {
            if (auto self = weak.lock())
                ((*self).*fn)(req, std::move(responder));
            else
                responder.send(http_error(503, kInternalError, "MCP server stopped"));
        };
    };
    if (metadata) {
        // Public: a client reads it before it has a token (RFC 9728 §3, the MCP authorization spec).
        auto document = std::make_shared<const std::string>(metadata->document);
        for (const std::string& p : metadata->paths) {
            app.get(p, [document](Request&) { return Response::json(*document); });
            app.auth_public_route(p);
        }
        app.auth_resource_metadata(metadata->url);
    }
    schedule_sweep();
    app.route_async("POST", path, route(&HttpTransport::post));
    app.route_async("GET", path, route(&HttpTransport::get));
    app.route_async("DELETE", path, route(&HttpTransport::del));
}

bool HttpTransport::origin_ok(Request& req, Responder& responder) {
    const ServerConfig& config = core_.config();
    if (!host_allowed(req.header("Host"), req.peer(), config.allowed_hosts)) {
        responder.send(http_error(403, kInvalidRequest, "Forbidden: Host not allowed"));
        return false;
    }
    if (origin_allowed(req.header("Origin"), req.header("Host"), config.allowed_origins)) return true;
    responder.send(http_error(403, kInvalidRequest, "Forbidden: Origin not allowed"));
    return false;
}

bool HttpTransport::version_ok(Request& req, Responder& responder) {
    const auto version = req.header(kVersionHeader);
    if (!version || is_supported_version(*version)) return true;
    responder.send(http_error(400, kInvalidRequest, "Bad Request: unsupported MCP-Protocol-Version"));
    return false;
}

void HttpTransport::with_session(Request& req, Responder responder, SessionNext next) {
    const auto id = req.header(kSessionHeader);
    if (!id || id->empty()) {
        responder.send(http_error(400, kInvalidRequest, "Bad Request: Mcp-Session-Id header is required"));
        return;
    }
    auto cached = sessions_.find(*id, req.principal());
    if (store_ == nullptr) {
        if (cached == nullptr) return (void)responder.send(http_error(404, kInvalidRequest, "Session not found"));
        return next(req, std::move(responder), std::move(cached));
    }
    const std::uint32_t check = core_.config().store_check_ms;
    if (cached != nullptr && check > 0 && now_ms() - cached->checked_ms.load() < check) {
        cached->used_ms.store(wall_ms());
        return next(req, std::move(responder), std::move(cached));
    }
    // Read the row: the session may be new to this process, or deleted or changed by another one.
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    auto held = std::make_shared<Responder>(std::move(responder));
    std::string key(*id);
    store_->load(key, [weak, req, held, key, principal = std::string(req.principal()), next = std::move(next)](
                          SessionStore::Outcome outcome, std::optional<SessionRecord> record) mutable {
        auto self = weak.lock();
        if (self == nullptr)
            return (void)held->send(http_error(503, kInternalError, "Service Unavailable: MCP server stopped"));
        self->loaded(req, std::move(*held), key, principal, outcome, std::move(record), next);
    });
}

void HttpTransport::loaded(Request& req, Responder responder, const std::string& id, const std::string& principal,
                           SessionStore::Outcome outcome, std::optional<SessionRecord> record,
                           const SessionNext& next) {
    if (outcome == SessionStore::Outcome::kUnavailable) return (void)responder.send(store_unavailable());
    if (!record || record->principal != principal) {
        // Gone from the store (DELETE or expiry through any process), or another principal's: what this process
        // holds of it ends too.
        if (auto stale = sessions_.remove(id, principal)) end(stale);
        return (void)responder.send(http_error(404, kInvalidRequest, "Session not found"));
    }
    SessionTable::Outcome made{};
    bool fresh = false;
    auto http = sessions_.adopt(id, principal, made, fresh);
    if (http == nullptr) {
        const bool per_principal = made == SessionTable::Outcome::kPrincipalFull;
        return (void)responder.send(
            http_error(per_principal ? 429 : 503, kServerBusy,
                       per_principal ? "Too many sessions for this principal" : "Too many sessions"));
    }
    http->session->restore(record->version, std::move(record->capabilities), record->log_level, record->subscriptions);
    if (fresh) wire(http);
    http->checked_ms.store(now_ms());
    http->used_ms.store(wall_ms());
    if (record->last_seen_ms > http->stored_seen_ms.load()) http->stored_seen_ms.store(record->last_seen_ms);
    next(req, std::move(responder), std::move(http));
}

void HttpTransport::wire(const std::shared_ptr<HttpSession>& s) {
    std::weak_ptr<ServerStream> stream = s->stream;
    s->session->set_sink([stream](std::string m) {
        if (auto held = stream.lock()) held->push(m);
    });
    if (store_ != nullptr) {
        std::weak_ptr<SessionStore> weak_store = store_;
        // What finds nothing here may be for another process holding the session's call: through the store.
        s->session->set_request_prefix(process_tag_);
        s->session->set_forwarder([weak_store, id = s->session->id(), principal = s->session->principal()](
                                      std::string_view kind, const std::string& target, std::string payload) {
            auto held = weak_store.lock();
            if (held == nullptr) return;
            held->post_signal({new_session_id(), id, principal, std::string(kind), target, std::move(payload), 0});
        });
        s->session->set_saver([weak_store](const Session& session, std::function<void(bool)> done) {
            auto held = weak_store.lock();
            if (held == nullptr) return done(false);
            held->update(record_of(session),
                         [done = std::move(done)](SessionStore::Outcome o) { done(o == SessionStore::Outcome::kOk); });
        });
    }
    core_.attach(s->session);
}

void HttpTransport::refresh_store() {
    if (store_ == nullptr) return;
    const std::int64_t now = wall_ms();
    const std::int64_t period = std::max<std::int64_t>(store_->idle_ms() / 4, 1);
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    for (const auto& s : sessions_.snapshot()) {
        const bool streaming = s->stream->live();
        if (streaming) {
            // An open GET stream of a session another process deleted ends here too, without waiting for a request.
            store_->load(s->session->id(), [weak, id = s->session->id(), principal = s->session->principal()](
                                               SessionStore::Outcome outcome, std::optional<SessionRecord> record) {
                if (outcome != SessionStore::Outcome::kNotFound && (!record || record->principal == principal)) return;
                if (auto self = weak.lock())
                    if (auto gone = self->sessions_.remove(id, principal)) self->end(gone);
            });
        }
        // A session in use here (a request, or its open GET stream) keeps its row alive for other processes.
        const std::int64_t used = streaming ? now : s->used_ms.load();
        if (used - s->stored_seen_ms.load() < period) continue;
        s->stored_seen_ms.store(now);
        store_->touch(s->session->id());
    }
    store_->sweep(500);
}

void HttpTransport::end(const std::shared_ptr<HttpSession>& s) {
    s->stream->close(true);
    if (stored_) stored_->end_session(s->session->id());
    s->session->set_sink(nullptr);
    core_.end_session(s->session);
}

void HttpTransport::sweep() {
    const std::int64_t now = now_ms();
    std::int64_t last = last_sweep_ms_.load();
    if (now - last < 1000 || !last_sweep_ms_.compare_exchange_strong(last, now)) return;
    for (auto& s : sessions_.expire()) {
        end(s);
        // Gone from the store too unless another process used it meanwhile.
        if (store_ != nullptr) store_->remove_if_idle(s->session->id());
    }
}

void HttpTransport::schedule_poll() {
    std::uint32_t period = core_.config().store_poll_ms;
    if (period == 0 || store_ == nullptr) return;
    if (notified_) period = std::max<std::uint32_t>(period, 1000);  // NOTIFY wakes the reads; this catches a lost one
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    core_.timers()->schedule(period, [weak] {
        if (auto self = weak.lock()) self->poll_signals(true);
    });
}

void HttpTransport::poll_signals(bool periodic) {
    if (periodic && stored_) stored_->poll();  // the streams resumed from the store: what their producers wrote
    // Signals of the last two seconds before the previous poll too (another process's clock, a slow commit), each
    // applied once (seen_).
    constexpr std::int64_t kOverlapMs = 2000;
    std::int64_t since = 0;
    {
        std::lock_guard lock(signals_mu_);
        since = polled_ms_ - kOverlapMs;
        polled_ms_ = wall_ms();
        std::erase_if(seen_, [&](const auto& kv) { return kv.second < since - kOverlapMs; });
    }
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    store_->signals_since(
        since, 1000, [weak, periodic](SessionStore::Outcome, std::vector<SessionStore::Signal> signals) {
            auto self = weak.lock();
            if (self == nullptr) return;
            for (const SessionStore::Signal& signal : signals) {
                {
                    std::lock_guard lock(self->signals_mu_);
                    if (!self->seen_.emplace(signal.id, signal.created_ms).second) continue;
                }
                self->apply(signal);
            }
            if (periodic) self->schedule_poll();  // the next once this one answered (a slow store is not asked twice)
        });
}

void HttpTransport::apply(const SessionStore::Signal& signal) {
    auto http = sessions_.find(signal.session_id, signal.principal);
    if (http == nullptr) return;  // not held here
    if (signal.kind == "cancel") {
        if (auto call = http->session->find(signal.target)) call->cancel(std::nullopt);
        return;
    }
    if (signal.kind != "answer") return;
    auto incoming = parse_messages(signal.payload, core_.parse_limits());
    if (incoming.error_code != 0 || incoming.batch || incoming.messages.front().kind != MessageKind::kResponse) return;
    // Ours when its id is one of our pending requests (never forwarded again: a late one is dropped).
    core_.answer_pending(http->session, incoming.messages.front());
}

void HttpTransport::schedule_sweep() {
    if (core_.config().stateless) return;
    const std::uint32_t period = std::clamp<std::uint32_t>(core_.config().session_idle_ms / 4, 1000, 60000);
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    core_.timers()->schedule(period, [weak] {
        if (auto self = weak.lock()) {
            self->sweep();
            self->refresh_store();
            self->schedule_sweep();
        }
    });
}

bool HttpTransport::post_headers_ok(Request& req, Responder& responder) {
    const auto accept = req.header("Accept");
    if (!accept || !accepts(*accept, "application/json") || !accepts(*accept, "text/event-stream")) {
        responder.send(http_error(406, kInvalidRequest,
                                  "Not Acceptable: Accept must list application/json and text/event-stream"));
        return false;
    }
    const auto content_type = req.header("Content-Type");
    if (!content_type || !accepts(*content_type, "application/json") || content_type->find('*') != std::string::npos) {
        responder.send(
            http_error(415, kInvalidRequest, "Unsupported Media Type: Content-Type must be application/json"));
        return false;
    }
    if (req.body().size() > core_.config().max_message_bytes) {
        responder.send(http_error(413, kInvalidRequest, "Payload Too Large"));
        return false;
    }
    return true;
}

std::optional<HttpTransport::PostTarget> HttpTransport::target_of(Request& req, Responder& responder, bool initialize) {
    PostTarget t;
    if (core_.config().stateless) {
        t.session = std::make_shared<Session>("", std::string(req.principal()));
        t.session->set_version(req.header(kVersionHeader).value_or(kDefaultVersion));
        t.session->set_answerable(false);
        if (!initialize) t.session->set_initialized();
        return t;
    }
    SessionTable::Outcome outcome{};
    t.http = sessions_.create(std::string(req.principal()), outcome);
    if (t.http == nullptr) {
        const bool principal = outcome == SessionTable::Outcome::kPrincipalFull;
        responder.send(http_error(principal ? 429 : 503, kServerBusy,
                                  principal ? "Too many sessions for this principal" : "Too many sessions"));
        return std::nullopt;
    }
    t.session = t.http->session;
    t.http->used_ms.store(wall_ms());
    t.headers.emplace_back(kSessionHeader, t.session->id());
    return t;
}

std::shared_ptr<PostChannel> HttpTransport::channel_for(Responder responder, PostTarget& target, bool initialize,
                                                        std::vector<std::string> request_ids, bool modern,
                                                        bool force_sse) {
    const ServerConfig& config = core_.config();
    PostChannelOptions options;
    options.sse = !config.json_response || force_sse;
    options.modern = modern;
    options.headers = std::move(target.headers);
    if (target.http) options.fallback = [stream = target.http->stream](std::string m) { stream->push(m); };
    const bool resumable = config.resumable_streams && target.http && options.sse && !initialize;
    if (resumable) {
        options.stream_id = stream_prefix_ + std::to_string(target.http->posts->next_id());
        if (stored_)
            options.recorder = std::make_shared<StreamRecorder>(
                store_, target.session->id(), options.stream_id,
                StreamRecorder::Limits{config.stream_store_events, config.stream_store_bytes});
        options.keep_events = config.replay_events;
        options.priming_event = target.session->features().priming_event;
        options.retry_ms = config.stream_retry_ms;
    } else {
        // A client that goes away cancels its requests in flight.
        std::weak_ptr<Session> weak_session = target.session;
        responder.on_cancel([weak_session, ids = std::move(request_ids)] {
            if (auto s = weak_session.lock())
                for (const std::string& id : ids)
                    if (auto call = s->find(id)) call->cancel(std::nullopt);
        });
    }
    std::string stream_id = options.stream_id;
    auto channel = std::make_shared<PostChannel>(std::move(responder), std::move(options));
    if (resumable) target.http->posts->add(std::move(stream_id), channel);
    return channel;
}

void HttpTransport::post(Request& req, Responder responder) {
    sweep();
    if (!origin_ok(req, responder) || !post_headers_ok(req, responder)) return;
    auto incoming = std::make_shared<Incoming>(parse_messages(req.body(), core_.parse_limits()));
    if (incoming->error_code != 0) return (void)responder.send(http_error(400, incoming->error_code, incoming->error));
    if (!incoming->batch && incoming->messages.front().kind != MessageKind::kInvalid &&
        incoming->messages.front().kind != MessageKind::kResponse) {
        EnvelopeRead read = read_envelope(incoming->messages.front(), {});
        if (read.status != EnvelopeRead::kLegacy) return post_modern(req, std::move(responder), incoming, read);
    }
    const bool initialize = !incoming->batch && incoming->messages.front().kind == MessageKind::kRequest &&
                            incoming->messages.front().method == "initialize";
    if (const auto header = req.header(kVersionHeader); !initialize && header && is_modern_version(*header)) {
        // A request of the per-request era without its envelope: the _meta it must carry is missing.
        const std::string id = incoming->batch ? "null" : incoming->messages.front().id_json;
        return (void)responder.send(Response::json(
            error_message(id, kInvalidParams,
                          "Invalid params: _meta \"io.modelcontextprotocol/protocolVersion\" is required by " +
                              std::string(*header)),
            400));
    }
    // The header applies to the requests after initialize (the version is negotiated in its body).
    if (!initialize && !version_ok(req, responder)) return;
    if (!initialize && !core_.config().stateless) {
        std::weak_ptr<HttpTransport> weak = weak_from_this();
        return with_session(req, std::move(responder),
                            [weak, incoming](Request&, Responder r, std::shared_ptr<HttpSession> http) {
                                auto self = weak.lock();
                                if (self == nullptr) return;  // r answers 500 as it goes
                                PostTarget target{http, http->session, {}};
                                self->deliver(std::move(r), incoming, target, false);
                            });
    }
    // A new session for initialize; a throwaway one when stateless.
    std::optional<PostTarget> target = target_of(req, responder, initialize);
    if (!target) return;
    if (initialize && store_ != nullptr && target->http != nullptr)
        return deliver_initialize(std::move(responder), incoming, std::move(*target));
    deliver(std::move(responder), incoming, *target, initialize);
}

std::string HttpTransport::version_mismatch(Request& req, std::string_view body_version) {
    const auto version = req.header(kVersionHeader);
    if (!version) return "Header mismatch: MCP-Protocol-Version is required";
    if (*version != body_version)
        return "Header mismatch: MCP-Protocol-Version header value '" + std::string(*version) +
               "' does not match body value '" + std::string(body_version) + "'";
    return {};
}

std::string HttpTransport::header_mismatch(Request& req, const Message& message) {
    const auto method = req.header("Mcp-Method");
    if (!method) return "Header mismatch: Mcp-Method is required";
    if (*method != message.method)
        return "Header mismatch: Mcp-Method header value '" + std::string(*method) + "' does not match body value '" +
               std::string(message.method) + "'";
    // Mcp-Name mirrors params.name (tools/call, prompts/get) or params.uri (resources/read).
    const std::string_view key = message.method == "resources/read"                                  ? "uri"
                                 : message.method == "tools/call" || message.method == "prompts/get" ? "name"
                                                                                                     : "";
    if (key.empty()) return {};
    const json::Value* body = string_param(message, key);
    const auto name = req.header("Mcp-Name");
    if (!name) return body != nullptr ? "Header mismatch: Mcp-Name is required" : std::string();
    const std::optional<std::string> decoded = decode_mirrored_header(*name);
    if (!decoded) return "Header mismatch: Mcp-Name holds invalid characters or invalid base64";
    if (body == nullptr || *decoded != body->as_string())
        return "Header mismatch: Mcp-Name header value does not match body value of params." + std::string(key);
    if (message.method != "tools/call") return {};
    auto tool = core_.registry().tool(body->as_string());
    if (tool == nullptr || tool->header_params.empty()) return {};  // an unknown tool is the core's error
    const json::Value* args = message.params->find("arguments");
    if (args == nullptr || !args->is_object()) return {};
    return header_params_mismatch(tool->header_params, *args,
                                  [&req](std::string_view name) { return req.header(name); });
}

void HttpTransport::post_modern(Request& req, Responder responder, const std::shared_ptr<Incoming>& incoming,
                                const EnvelopeRead& read) {
    const Message& message = incoming->messages.front();
    const bool request = message.kind == MessageKind::kRequest;
    // The header must mirror the body's version before the version itself is judged.
    if (request && read.status != EnvelopeRead::kInvalid) {
        const std::string why =
            version_mismatch(req, read.status == EnvelopeRead::kOk ? read.envelope.version : read.requested);
        if (!why.empty())
            return (void)responder.send(Response::json(error_message(message.id_json, kHeaderMismatch, why), 400));
    }
    if (read.status == EnvelopeRead::kUnsupported)
        return (void)responder.send(
            Response::json(error_message(message.id_json, kUnsupportedProtocolVersion, "Unsupported protocol version",
                                         unsupported_version_data(read.requested)),
                           400));
    if (read.status == EnvelopeRead::kInvalid)
        return (void)responder.send(Response::json(error_message(message.id_json, kInvalidParams, read.error), 400));
    if (request) {
        if (std::string why = header_mismatch(req, message); !why.empty())
            return (void)responder.send(Response::json(error_message(message.id_json, kHeaderMismatch, why), 400));
        if (!is_modern_method(message.method))
            return (void)responder.send(Response::json(
                error_message(message.id_json, kMethodNotFound, "Method not found: " + std::string(message.method)),
                404));
    }
    // No session: Mcp-Session-Id is ignored and none is minted; the client's disconnect cancels the request.
    PostTarget target;
    target.session = std::make_shared<Session>("", std::string(req.principal()));
    target.session->set_answerable(false);
    deliver(std::move(responder), incoming, target, false, true, request && message.method == "subscriptions/listen");
}

void HttpTransport::deliver(Responder responder, const std::shared_ptr<Incoming>& incoming, PostTarget& target,
                            bool initialize, bool modern, bool force_sse) {
    const std::shared_ptr<Session> session = target.session;
    bool answers = false;
    std::vector<std::string> request_ids;
    for (const Message& m : incoming->messages) {
        answers = answers || m.kind == MessageKind::kRequest || m.kind == MessageKind::kInvalid;
        if (m.kind == MessageKind::kRequest) request_ids.push_back(m.id_json);
    }
    if (!answers && (!incoming->batch || session->features().batches)) {
        core_.handle(session, *incoming, std::make_shared<NullChannel>());
        return (void)responder.send(Response(202));
    }
    core_.handle(session, *incoming,
                 channel_for(std::move(responder), target, initialize, std::move(request_ids), modern, force_sse));
    if (!initialize || target.http == nullptr) return;
    if (!session->initialized()) {  // refused (no protocolVersion): no session was made
        sessions_.remove(session->id(), session->principal());
        return;
    }
    wire(target.http);
}

void HttpTransport::deliver_initialize(Responder responder, const std::shared_ptr<Incoming>& incoming,
                                       PostTarget target) {
    const std::shared_ptr<Session> session = target.session;
    auto capture = std::make_shared<CaptureChannel>();
    core_.handle(session, *incoming, capture);
    if (!session->initialized()) {  // refused (no protocolVersion): no session was made
        sessions_.remove(session->id(), session->principal());
        target.headers.clear();
        channel_for(std::move(responder), target, true, {})->answer(capture->take());
        return;
    }
    // The session id goes out once the row is written, so that any process can serve the next request.
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    auto held = std::make_shared<Responder>(std::move(responder));
    auto shared_target = std::make_shared<PostTarget>(std::move(target));
    store_->insert(record_of(*session), [weak, held, shared_target, capture](SessionStore::Outcome outcome) {
        auto self = weak.lock();
        if (self == nullptr)
            return (void)held->send(http_error(503, kInternalError, "Service Unavailable: MCP server stopped"));
        const std::shared_ptr<Session>& s = shared_target->session;
        if (outcome != SessionStore::Outcome::kOk) {
            self->sessions_.remove(s->id(), s->principal());
            if (outcome == SessionStore::Outcome::kPrincipalFull)
                return (void)held->send(http_error(429, kServerBusy, "Too many sessions for this principal"));
            return (void)held->send(store_unavailable());
        }
        shared_target->http->stored_seen_ms.store(wall_ms());
        self->wire(shared_target->http);
        self->channel_for(std::move(*held), *shared_target, true, {})->answer(capture->take());
    });
}

void HttpTransport::get(Request& req, Responder responder) {
    sweep();
    if (!origin_ok(req, responder)) return;
    if (core_.config().stateless) {
        Response r = http_error(405, kInvalidRequest, "Method Not Allowed: this server is stateless");
        r.headers.emplace_back("Allow", "POST");
        return (void)responder.send(std::move(r));
    }
    const auto accept = req.header("Accept");
    if (!accept || !accepts(*accept, "text/event-stream"))
        return (void)responder.send(
            http_error(406, kInvalidRequest, "Not Acceptable: Accept must list text/event-stream"));
    if (!version_ok(req, responder)) return;
    std::weak_ptr<HttpTransport> weak = weak_from_this();
    with_session(req, std::move(responder), [weak](Request& r, Responder resp, std::shared_ptr<HttpSession> s) {
        if (auto self = weak.lock()) self->attach_stream(r, std::move(resp), s);
    });
}

void HttpTransport::attach_stream(Request& req, Responder responder, const std::shared_ptr<HttpSession>& s) {
    std::optional<std::string_view> last = req.header("Last-Event-ID");
    // "<stream>-<n>": the rest of a POST's resumable stream; else the session's own stream.
    if (last && last->find('-') != std::string_view::npos) {
        const std::string_view text = *last;
        const std::size_t dash = text.rfind('-');
        const std::string_view stream_id = text.substr(0, dash);
        std::uint64_t after = 0;
        const auto b = std::from_chars(text.data() + dash + 1, text.data() + text.size(), after);
        const bool parsed =
            !stream_id.empty() && stream_id.size() <= 64 && b.ec == std::errc() && b.ptr == text.data() + text.size();
        if (auto post = parsed ? s->posts->find(stream_id) : nullptr) {
            EventStream stream(std::move(responder));
            if (!post->resume(stream, after)) stream.close();
            return;
        }
        if (parsed && stored_) {
            // Not held here: produced by another process, or by this one before a restart. A stream the store does
            // not know in this session (another session's, expired, made up) resumes nothing, as below.
            // The store answers later: what the session's stream gets meanwhile is replayed then.
            stored_->resume(s->session->id(), std::string(stream_id), after, EventStream(std::move(responder)),
                            [s, mark = s->stream->last_id()](EventStream stream) {
                                s->stream->attach(std::move(stream), std::string_view(mark));
                            });
            return;
        }
        last.reset();  // a stream we do not know (any more): nothing of another stream is replayed
    }
    s->stream->attach(EventStream(std::move(responder)), last);
}

void HttpTransport::del(Request& req, Responder responder) {
    if (!origin_ok(req, responder)) return;
    if (core_.config().stateless) {
        Response r = http_error(405, kInvalidRequest, "Method Not Allowed: this server is stateless");
        r.headers.emplace_back("Allow", "POST");
        return (void)responder.send(std::move(r));
    }
    if (!version_ok(req, responder)) return;
    const auto id = req.header(kSessionHeader);
    if (!id || id->empty())
        return (void)responder.send(http_error(400, kInvalidRequest, "Bad Request: Mcp-Session-Id header is required"));
    auto s = sessions_.remove(*id, req.principal());
    if (s != nullptr) end(s);
    if (store_ == nullptr) {
        if (s == nullptr) return (void)responder.send(http_error(404, kInvalidRequest, "Session not found"));
        return (void)responder.send(Response(200));
    }
    // The row decides: a session this process held but another one deleted (or that expired) is unknown.
    auto held = std::make_shared<Responder>(std::move(responder));
    store_->remove(std::string(*id), std::string(req.principal()), [held](SessionStore::Outcome outcome) {
        if (outcome == SessionStore::Outcome::kUnavailable) return (void)held->send(store_unavailable());
        if (outcome == SessionStore::Outcome::kNotFound)
            return (void)held->send(http_error(404, kInvalidRequest, "Session not found"));
        held->send(Response(200));
    });
}

}  // namespace slipstream::mcp::detail
