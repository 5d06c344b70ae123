// H2TestServer (tests only): an HTTP/2 server on our own engine's protocol session (http/h2 ServerSession), TLS with
// ALPN h2 or h2c, a thread per connection; each request answered as the test's Reply says (chunks, pauses, never).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "http/h2/session.h"
#include "store/http/test_server.h"

namespace slipstream::store::http::testing {

/// How one request is answered: the head, then each chunk after `gap_ms`, then the end (unless `never`).
struct Reply {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::vector<std::string> chunks;
    int gap_ms = 0;
    bool never = false;   // no answer at all (a first-byte timeout)
    int reset_code = -1;  // >= 0: RST_STREAM with this code instead of an answer
};

/// A request as the server saw it.
struct Seen {
    std::string method, path, authority, body;
    std::vector<std::pair<std::string, std::string>> headers;
    int connection = 0;  // which connection (1, 2, ...) carried it
};

class H2TestServer {
  public:
    using Route = std::function<Reply(const Seen&)>;

    /// TLS with ALPN `alpn` (default "h2") when `cert` is given, else h2c (prior knowledge).
    explicit H2TestServer(Route route, std::string cert = {}, std::string key = {},
                          std::vector<std::string> alpn = {"h2"}, ::slipstream::http::h2::SessionConfig config = {})
        : route_(std::move(route)),
          config_(config),
          server_([this](ServerConn& c) { serve(c); }, std::move(cert), std::move(key), std::move(alpn)) {}

    std::string url(std::string_view path = "/") const { return server_.url(path); }
    std::uint16_t port() const { return server_.port(); }
    int connections() const { return server_.connections(); }
    std::vector<std::string> chosen() { return server_.chosen(); }
    std::vector<Seen> seen() {
        std::lock_guard<std::mutex> lock(mutex_);
        return seen_;
    }
    /// Streams the clients reset (RST_STREAM) before their answer ended, by path.
    std::vector<std::string> resets() {
        std::lock_guard<std::mutex> lock(mutex_);
        return resets_;
    }
    /// The most body bytes framed for one stream so far (what flow control let through).
    std::size_t max_body_sent() const { return max_body_sent_.load(); }
    /// The most streams answered at once on one connection.
    int max_streams() const { return max_streams_.load(); }

  private:
    struct Pending {
        Reply reply;
        std::string path;
        std::size_t next = 0;
        bool started = false;
        std::chrono::steady_clock::time_point due;
    };

    struct Handler final : ::slipstream::http::h2::SessionHandler {
        H2TestServer* server = nullptr;
        int connection = 0;
        ::slipstream::http::h2::ServerSession* session = nullptr;
        std::map<::slipstream::http::h2::StreamId, Pending> pending;
        std::map<::slipstream::http::h2::StreamId, std::string> paths;
        void on_request(::slipstream::http::h2::StreamId id, const ::slipstream::http::h2::RequestHead& r) override {
            Seen s{std::string(r.method),
                   std::string(r.path),
                   std::string(r.authority),
                   std::string(r.body),
                   {},
                   connection};
            for (const auto& h : r.headers)
                s.headers.emplace_back(h.name, h.value);
            Reply reply = server->route_(s);
            paths[id] = s.path;
            {
                std::lock_guard<std::mutex> lock(server->mutex_);
                server->seen_.push_back(s);
            }
            if (reply.reset_code >= 0) {
                session->reset(id, static_cast<::slipstream::http::h2::ErrorCode>(reply.reset_code));
                return;
            }
            if (reply.never) return;
            pending[id] = Pending{std::move(reply), s.path, 0, false, std::chrono::steady_clock::now()};
            int n = static_cast<int>(pending.size());
            int prev = server->max_streams_.load();
            while (n > prev && !server->max_streams_.compare_exchange_weak(prev, n)) {
            }
        }
        void on_stream_reset(::slipstream::http::h2::StreamId id) override {
            std::lock_guard<std::mutex> lock(server->mutex_);
            server->resets_.push_back(paths[id]);
            pending.erase(id);
        }
        void on_stream_data(::slipstream::http::h2::StreamId, std::string_view) override {}
        void on_stream_end(::slipstream::http::h2::StreamId) override {}
        void on_stream_closed(::slipstream::http::h2::StreamId) override {}

        // Moves every reply that is due one step on.
        void step() {
            auto now = std::chrono::steady_clock::now();
            for (auto it = pending.begin(); it != pending.end();) {
                Pending& p = it->second;
                const auto id = it->first;
                if (!p.started) {
                    std::vector<::slipstream::http::h2::HeaderField> h;
                    for (const auto& [k, v] : p.reply.headers)
                        h.push_back({k, v});
                    if (!session->start_stream(id, p.reply.status, h).is_ok()) {
                        it = pending.erase(it);
                        continue;
                    }
                    p.started = true;
                    p.due = now + std::chrono::milliseconds(p.reply.gap_ms);
                }
                // The next chunk once the previous one left (flow control) and its gap passed.
                while (p.next < p.reply.chunks.size() && now >= p.due && session->queued_bytes(id) == 0) {
                    (void)session->write(id, p.reply.chunks[p.next++]);
                    p.due = now + std::chrono::milliseconds(p.reply.gap_ms);
                }
                std::size_t sent = session->body_bytes_sent(id);
                std::size_t prev = server->max_body_sent_.load();
                while (sent > prev && !server->max_body_sent_.compare_exchange_weak(prev, sent)) {
                }
                if (p.next == p.reply.chunks.size() && session->queued_bytes(id) == 0) {
                    (void)session->end(id);
                    it = pending.erase(it);
                    continue;
                }
                ++it;
            }
        }
    };

    void serve(ServerConn& c) {
        Handler h;
        h.server = this;
        h.connection = ++connection_ids_;
        auto s = ::slipstream::http::h2::ServerSession::create(config_, h);
        if (!s.is_ok()) return;
        h.session = s->get();
        std::string out;
        for (;;) {
            h.step();
            out.clear();
            (*s)->send(out, 1 << 20);
            h.step();
            (*s)->send(out, 1 << 20);
            if (!out.empty() && !c.write(out)) return;
            if ((*s)->done()) return;
            std::string in;
            if (!c.read_some(in, 5)) return;
            if (!in.empty() && !(*s)->receive(in, 1).is_ok()) {
                out.clear();
                (*s)->send(out, 1 << 20);
                c.write(out);
                return;
            }
        }
    }

    Route route_;
    ::slipstream::http::h2::SessionConfig config_;
    std::mutex mutex_;
    std::vector<Seen> seen_;
    std::vector<std::string> resets_;
    std::atomic<std::size_t> max_body_sent_{0};
    std::atomic<int> max_streams_{0};
    std::atomic<int> connection_ids_{0};
    TestServer server_;  // last: its threads start once everything above exists
};

}  // namespace slipstream::store::http::testing
