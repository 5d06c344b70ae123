// Client: origins and their pools, the waiting queue, resolving on the workers, retries; Call: cancel, pause, resume.
#include "store/http/client.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>

#include "http/h1/header.h"
#include "net/socket.h"
#include "net/tls/tls_context.h"
#include "store/http/connection.h"
#include "store/http/h2_link.h"

namespace slipstream::store::http {
namespace {

bool is_token(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
        if (!ok) return false;
    }
    return true;
}

bool idempotent_method(std::string_view m) {
    return m == "GET" || m == "HEAD" || m == "OPTIONS" || m == "TRACE" || m == "PUT" || m == "DELETE";
}

// Fields the client writes itself (framing, connection management, the authority).
bool reserved_field(std::string_view name) {
    using h1::iequals;
    return iequals(name, "host") || iequals(name, "content-length") || iequals(name, "transfer-encoding") ||
           iequals(name, "connection") || iequals(name, "upgrade") || iequals(name, "te") ||
           iequals(name, "keep-alive");
}

std::string ms_text(std::int64_t ns) {
    return std::to_string(ns / 1'000'000) + " ms";
}

}  // namespace

base::Result<Http2Mode> parse_http2_mode(std::string_view text) {
    if (text == "auto") return Http2Mode::kAuto;
    if (text == "off") return Http2Mode::kOff;
    if (text == "prior-knowledge" || text == "h2c") return Http2Mode::kPriorKnowledge;
    return base::Status::invalid_argument("http2: '" + std::string(text) +
                                          "' is not one of auto, off, prior-knowledge");
}

std::string_view http2_mode_name(Http2Mode mode) {
    switch (mode) {
        case Http2Mode::kAuto:
            return "auto";
        case Http2Mode::kOff:
            return "off";
        case Http2Mode::kPriorKnowledge:
            return "prior-knowledge";
    }
    return "auto";
}

std::string_view ResponseHead::header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
        if (h1::iequals(k, name)) return v;
    }
    return {};
}

// ---- Call ----

Call::Call(Client* client, Request request, ResponseCallbacks callbacks)
    : client_(client), request_(std::move(request)), callbacks_(std::move(callbacks)) {}

Call::~Call() = default;

const std::string& Call::h1_wire() {
    if (!wire_.empty()) return wire_;
    const Request& r = request_;
    std::string& w = wire_;
    w.reserve(64 + r.url.size() + r.body.size() + r.headers.size() * 32);
    w.append(r.method).append(" ").append(url_.target).append(" HTTP/1.1\r\nHost: ");
    w.append(url_.authority()).append("\r\n");
    const std::string& agent = client_ != nullptr ? client_->options_.user_agent : std::string();
    if (!has_agent_ && !agent.empty()) w.append("User-Agent: ").append(agent).append("\r\n");
    for (const auto& [name, value] : r.headers)
        w.append(name).append(": ").append(value).append("\r\n");
    if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH")
        w.append("Content-Length: ").append(std::to_string(r.body.size())).append("\r\n");
    w.append("\r\n");
    w.append(r.body);
    return wire_;
}

void Call::finish(base::Status status) {
    if (done_) return;
    done_ = true;
    io_timer_.cancel();
    total_timer_.cancel();
    wait_timer_.cancel();
    retry_timer_.cancel();
    Client* client = client_;
    if (client != nullptr) {
        --client->active_;
        client_ = nullptr;
    }
    conn_ = nullptr;
    origin_ = nullptr;
    std::function<void(base::Status)> end = std::move(callbacks_.on_end);
    callbacks_.on_end = nullptr;
    // The other callbacks may be running (a cancel() from inside on_data): released after this iteration, which
    // also breaks a cycle through a caller that holds this call and is held by its callbacks.
    if (client != nullptr && !client->closing_) {
        client->loop_.defer([self = shared_from_this()] { self->callbacks_ = {}; });
    }
    if (end) end(std::move(status));
    if (client != nullptr && client->closing_) callbacks_ = {};
}

void Call::cancel() {
    if (done_ || client_ == nullptr) return;
    auto self = shared_from_this();
    if (conn_ != nullptr) {
        conn_->abort_call(this);
    } else {
        client_->remove_waiter(this);
    }
    finish(base::Status::cancelled("request cancelled"));
}

void Call::pause() {
    if (done_ || paused_) return;
    paused_ = true;
    if (conn_ != nullptr) conn_->pause_changed(this);
}

void Call::resume() {
    if (done_ || !paused_) return;
    paused_ = false;
    if (client_ == nullptr) return;
    // From the loop, not from inside this call: the caller may be inside on_data.
    client_->loop_.post([weak = weak_from_this()] {
        std::shared_ptr<Call> self = weak.lock();
        if (self && !self->done_ && !self->paused_ && self->conn_ != nullptr) self->conn_->pause_changed(self.get());
    });
}

// ---- Client ----

Client::Client(net::EventLoop& loop, ClientOptions options, WorkerPool* resolver)
    : loop_(loop), options_(std::move(options)), resolver_(resolver) {
    if (options_.max_connections_per_origin == 0) options_.max_connections_per_origin = 1;
}

Client::~Client() {
    closing_ = true;
    *alive_ = false;
    // Every call ends (kCancelled), then every connection closes.
    for (auto& [key, origin] : origins_) {
        auto waiting = std::move(origin->waiting);
        origin->waiting.clear();
        for (auto& call : waiting)
            call->finish(base::Status::cancelled("client closed"));
        for (auto& conn : origin->conns) {
            for (auto& call : conn->abort_all())
                call->finish(base::Status::cancelled("client closed"));
        }
    }
    for (auto& [key, origin] : origins_) {
        for (auto& conn : origin->conns)
            conn->close();
    }
    // Calls still held by their callers never touch the client again (finish() cleared client_).
}

base::Result<std::shared_ptr<const net::tls::TlsContext>> Client::tls_context(Http2Mode mode) {
    auto& slot = tls_[static_cast<std::size_t>(mode)];
    if (slot) return slot;
    if (!tls_error_.is_ok()) return tls_error_;
    // OpenSSL writes to the socket with write(2): a server that went away would raise SIGPIPE.
    net::ignore_sigpipe();
    net::tls::TlsClientConfig config = options_.tls;
    if (config.alpn.empty()) {
        config.alpn = mode == Http2Mode::kAuto  ? std::vector<std::string>{"h2", "http/1.1"}
                      : mode == Http2Mode::kOff ? std::vector<std::string>{"http/1.1"}
                                                : std::vector<std::string>{"h2"};
    }
    auto ctx = net::tls::TlsContext::create_client(config);
    if (!ctx.is_ok()) {
        tls_error_ = ctx.status();
        return tls_error_;
    }
    slot = *ctx;
    return slot;
}

Http2Mode Client::mode_for(const std::string& origin) const {
    auto it = options_.http2_by_origin.find(origin);
    return it != options_.http2_by_origin.end() ? it->second : options_.http2;
}

Origin& Client::origin_for(const Url& url) {
    std::string key = url.origin();
    auto it = origins_.find(key);
    if (it != origins_.end()) return *it->second;
    auto origin = std::make_unique<Origin>();
    origin->key = key;
    origin->host = url.host;
    origin->port = url.port;
    origin->tls = url.tls;
    origin->mode = mode_for(key);
    // Until the first connection says otherwise, an origin that may speak HTTP/2 gets one connection at a time.
    if (origin->mode == Http2Mode::kOff || (!url.tls && origin->mode == Http2Mode::kAuto)) {
        origin->learned = Origin::Protocol::kHttp1;
    } else if (origin->mode == Http2Mode::kPriorKnowledge) {
        origin->learned = Origin::Protocol::kHttp2;
    }
    // IP literals need no resolving; "localhost" neither when there is no resolver (127.0.0.1), else it is
    // resolved like any name (/etc/hosts may give ::1 too).
    auto numeric = net::SocketAddress::from_host_port(url.host, url.port);
    if (numeric.is_ok() && (url.host != "localhost" || resolver_ == nullptr)) {
        origin->numeric = true;
        origin->addresses.push_back(*numeric);
    }
    Origin& ref = *origin;
    origins_.emplace(std::move(key), std::move(origin));
    return ref;
}

std::shared_ptr<Call> Client::start(Request request, ResponseCallbacks callbacks) {
    auto call = std::make_shared<Call>(this, std::move(request), std::move(callbacks));
    ++active_;
    auto refuse = [&](base::Status status) {
        loop_.defer([call, status = std::move(status)]() mutable { call->finish(std::move(status)); });
        return call;
    };
    if (closing_) return refuse(base::Status::cancelled("client closed"));
    Request& r = call->request_;
    auto url = parse_url(r.url);
    if (!url.is_ok()) return refuse(url.status());
    call->url_ = std::move(url).value();
    if (!is_token(r.method)) return refuse(base::Status::invalid_argument("http: bad method '" + r.method + "'"));
    bool has_idempotency_key = false;
    for (const auto& [name, value] : r.headers) {
        base::Status s = h1::validate_field(name, value);
        if (!s.is_ok()) return refuse(base::Status::invalid_argument("http: header " + name + ": " + s.message()));
        if (reserved_field(name))
            return refuse(base::Status::invalid_argument("http: header " + name + " is set by the client"));
        call->has_agent_ = call->has_agent_ || h1::iequals(name, "user-agent");
        has_idempotency_key = has_idempotency_key || h1::iequals(name, "idempotency-key");
    }
    call->idempotent_ = r.idempotent.value_or(idempotent_method(r.method) || has_idempotency_key);
    if (call->url_.tls) {
        auto ctx = tls_context(mode_for(call->url_.origin()));
        if (!ctx.is_ok()) return refuse(ctx.status());
    }
    Origin& origin = origin_for(call->url_);
    if (origin.waiting.size() >= options_.max_waiting_per_origin)
        return refuse(base::Status::resource_exhausted("http: too many requests waiting for " + origin.key));
    if (r.timeouts.total_ns > 0) {
        call->total_timer_.set_callback([weak = std::weak_ptr<Call>(call)] {
            std::shared_ptr<Call> c = weak.lock();
            if (!c || c->done_ || c->client_ == nullptr) return;
            if (c->conn_ != nullptr) {
                c->conn_->abort_call(c.get());
            } else {
                c->client_->remove_waiter(c.get());
            }
            c->finish(base::Status::timeout("http: request took longer than " + ms_text(c->request_.timeouts.total_ns) +
                                            " (total timeout)"));
        });
        loop_.schedule_after(call->total_timer_, r.timeouts.total_ns);
    }
    call->origin_ = &origin;
    enqueue(call, false);
    return call;
}

ResponseCallbacks buffered_response(std::function<void(base::Result<Response>)> done) {
    auto response = std::make_shared<Response>();
    ResponseCallbacks cb;
    cb.on_head = [response](const ResponseHead& head) { response->head = head; };
    cb.on_data = [response](std::string_view data) { response->body.append(data); };
    cb.on_end = [response, done = std::move(done)](base::Status status) {
        if (!status.is_ok()) {
            done(std::move(status));
        } else {
            done(std::move(*response));
        }
    };
    return cb;
}

std::shared_ptr<Call> Client::fetch(Request request, std::function<void(base::Result<Response>)> done) {
    return start(std::move(request), buffered_response(std::move(done)));
}

void Client::enqueue(const std::shared_ptr<Call>& call, bool front) {
    Origin& origin = *call->origin_;
    if (front) {
        origin.waiting.push_front(call);
    } else {
        origin.waiting.push_back(call);
    }
    if (options_.queue_timeout_ns > 0 && !call->wait_timer_.scheduled()) {
        call->wait_timer_.set_callback([weak = std::weak_ptr<Call>(call)] {
            std::shared_ptr<Call> c = weak.lock();
            if (!c || c->done_ || c->client_ == nullptr || c->conn_ != nullptr) return;
            c->client_->remove_waiter(c.get());
            c->finish(base::Status::timeout("http: no connection to " + c->url_.origin() + " within " +
                                            ms_text(c->client_->options_.queue_timeout_ns) + " (queue timeout)"));
        });
        loop_.schedule_after(call->wait_timer_, options_.queue_timeout_ns);
    }
    dispatch(origin);
}

void Client::remove_waiter(Call* call) {
    if (call->origin_ == nullptr) return;
    auto& w = call->origin_->waiting;
    for (auto it = w.begin(); it != w.end(); ++it) {
        if (it->get() == call) {
            w.erase(it);
            return;
        }
    }
}

void Client::dispatch(Origin& origin) {
    // HTTP/2: the origin's connection takes waiting calls while it has streams free; the others wait for one.
    if (origin.h2 != nullptr && !origin.h2->h2_usable()) origin.h2 = nullptr;
    if (origin.h2 != nullptr) {
        while (!origin.waiting.empty() && origin.h2->h2_can_take()) {
            std::shared_ptr<Call> call = std::move(origin.waiting.front());
            origin.waiting.pop_front();
            origin.h2->assign(std::move(call));
        }
        return;
    }
    // Idle connections first (the most recently used: its TCP state is the warmest), each checked.
    while (!origin.waiting.empty() && !origin.idle.empty()) {
        Connection* conn = origin.idle.back();
        origin.idle.pop_back();
        if (!conn->healthy()) {
            ++counters_.expired;
            conn->close();
            drop(conn);
            continue;
        }
        std::shared_ptr<Call> call = std::move(origin.waiting.front());
        origin.waiting.pop_front();
        ++counters_.reused;
        conn->assign(std::move(call));
    }
    // Then new connections, no more attempts than calls waiting; one at a time where HTTP/2 may answer.
    const bool single = origin.learned != Origin::Protocol::kHttp1;
    while (origin.waiting.size() > origin.connecting && origin.conns.size() < options_.max_connections_per_origin &&
           !(single && origin.connecting > 0))
        open_connection(origin);
}

void Client::open_connection(Origin& origin) {
    origin.conns.push_back(std::make_unique<Connection>(*this, origin));
    Connection* conn = origin.conns.back().get();
    ++origin.connecting;
    bool fresh =
        !origin.addresses.empty() && (origin.numeric || loop_.now() - origin.resolved_at < options_.dns_ttl_ns);
    if (fresh) {
        conn->addresses_ready(base::Status::ok());
    } else {
        resolve(origin);
    }
}

void Client::resolve(Origin& origin) {
    if (origin.resolving) return;
    if (resolver_ == nullptr) {
        std::string key = origin.key;
        std::uint64_t gen = ++origin.generation;
        origin.resolving = true;
        loop_.defer([this, key, gen, weak = std::weak_ptr<bool>(alive_)] {
            if (weak.expired()) return;
            on_resolved(
                key, base::Status::invalid_argument("http: cannot resolve a host name without resolver workers"), gen);
        });
        return;
    }
    origin.resolving = true;
    std::uint64_t gen = ++origin.generation;
    std::string key = origin.key;
    std::string host = origin.host;
    std::uint16_t port = origin.port;
    net::EventLoop* loop = &loop_;
    std::weak_ptr<bool> weak(alive_);
    base::Status queued = resolver_->submit([this, loop, weak, key, host, port, gen](std::size_t) {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV;
        addrinfo* res = nullptr;
        std::string service = std::to_string(port);
        int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
        base::Result<std::vector<net::SocketAddress>> out = std::vector<net::SocketAddress>();
        if (rc != 0) {
            std::string why = "http: cannot resolve '" + host + "': " + gai_strerror(rc);
            out = rc == EAI_AGAIN ? base::Status::unavailable(std::move(why)) : base::Status::not_found(std::move(why));
        } else {
            std::vector<net::SocketAddress> list;
            for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
                net::SocketAddress addr = net::SocketAddress::from_sockaddr(a->ai_addr, a->ai_addrlen);
                if (addr.is_ipv4() || addr.is_ipv6()) list.push_back(addr);
            }
            ::freeaddrinfo(res);
            if (list.empty()) {
                out = base::Status::unavailable("http: no address for '" + host + "'");
            } else {
                out = std::move(list);
            }
        }
        loop->post([this, weak, key, gen, out = std::move(out)]() mutable {
            if (weak.expired()) return;
            on_resolved(key, std::move(out), gen);
        });
    });
    if (!queued.is_ok()) {
        loop_.defer([this, key, gen, weak] {
            if (weak.expired()) return;
            on_resolved(key, base::Status::resource_exhausted("http: resolver queue full"), gen);
        });
    }
}

void Client::on_resolved(const std::string& key, base::Result<std::vector<net::SocketAddress>> addresses,
                         std::uint64_t generation) {
    auto it = origins_.find(key);
    if (it == origins_.end()) return;
    Origin& origin = *it->second;
    if (generation != origin.generation) return;
    origin.resolving = false;
    base::Status status = addresses.status();
    if (addresses.is_ok()) {
        origin.addresses = std::move(addresses).value();
        origin.resolved_at = loop_.now();
    }
    std::vector<Connection*> pending;
    for (auto& conn : origin.conns) {
        if (conn->state() == Connection::State::kResolving) pending.push_back(conn.get());
    }
    for (Connection* conn : pending)
        conn->addresses_ready(status);
}

void Client::connect_failed(Origin& origin, base::Status status) {
    if (origin.waiting.empty()) return;
    std::shared_ptr<Call> call = std::move(origin.waiting.front());
    origin.waiting.pop_front();
    // Nothing was sent: a refused or reset connection attempt may be tried again after a pause.
    bool retryable = (status.is_unavailable() || status.is_io_error()) && call->idempotent_ &&
                     call->refused_retries_ < options_.max_retries && !closing_;
    if (!retryable) {
        call->finish(std::move(status));
        dispatch(origin);
        return;
    }
    std::int64_t backoff = options_.retry_backoff_ns << call->refused_retries_;
    ++call->refused_retries_;
    ++counters_.retries;
    call->wait_timer_.cancel();
    call->backing_off_ = true;
    call->retry_timer_.set_callback([weak = std::weak_ptr<Call>(call)] {
        std::shared_ptr<Call> c = weak.lock();
        if (!c || c->done_ || c->client_ == nullptr) return;
        c->backing_off_ = false;
        c->client_->enqueue(c, true);
    });
    loop_.schedule_after(call->retry_timer_, std::max<std::int64_t>(backoff, 1));
    dispatch(origin);
}

bool Client::maybe_retry(const std::shared_ptr<Call>& call, const base::Status& status, bool unprocessed) {
    if (closing_ || call->done_ || call->head_seen_ || !(call->idempotent_ || unprocessed)) return false;
    if (!(status.is_unavailable() || status.is_io_error())) return false;  // never after a timeout
    if (call->attempts_ > (unprocessed ? options_.max_unprocessed_retries : options_.max_retries)) return false;
    ++counters_.retries;
    call->conn_ = nullptr;
    enqueue(call, true);
    return true;
}

void Client::release(Connection* conn) {
    Origin& origin = conn->origin();
    if (closing_) return;
    if (!origin.waiting.empty()) {
        std::shared_ptr<Call> call = std::move(origin.waiting.front());
        origin.waiting.pop_front();
        if (conn->served_before()) ++counters_.reused;
        conn->assign(std::move(call));
        return;
    }
    conn->park();
    origin.idle.push_back(conn);
}

void Client::drop(Connection* conn, bool redispatch) {
    Origin& origin = conn->origin();
    auto idle = std::find(origin.idle.begin(), origin.idle.end(), conn);
    if (idle != origin.idle.end()) origin.idle.erase(idle);
    for (auto it = origin.conns.begin(); it != origin.conns.end(); ++it) {
        if (it->get() != conn) continue;
        graveyard_.push_back(std::move(*it));
        origin.conns.erase(it);
        break;
    }
    if (!burying_ && !closing_) {
        burying_ = true;
        loop_.defer([this, weak = std::weak_ptr<bool>(alive_)] {
            if (weak.expired()) return;
            burying_ = false;
            graveyard_.clear();
        });
    }
    if (redispatch && !closing_) dispatch(origin);  // room for another connection
}

ClientStats Client::stats() const {
    ClientStats s = counters_;
    s.active = active_;
    for (const auto& [key, origin] : origins_) {
        s.open += origin->conns.size();
        s.idle += origin->idle.size();
        s.waiting += origin->waiting.size();
        for (const auto& conn : origin->conns) {
            if (!conn->multiplexed()) continue;
            ++s.h2_connections;
            if (conn->h2_idle()) ++s.idle;
        }
    }
    return s;
}

}  // namespace slipstream::store::http
