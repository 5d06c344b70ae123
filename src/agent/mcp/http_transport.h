// HttpTransport: Streamable HTTP (POST, GET, DELETE on one path) over ServerCore, stateful or stateless.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agent/mcp/post_channel.h"
#include "agent/mcp/server_core.h"
#include "agent/mcp/session_store.h"
#include "agent/mcp/session_table.h"
#include "agent/mcp/stored_streams.h"
#include "slipstream/app.h"

namespace slipstream::mcp::detail {

/// Lives as long as the Server (ServerCore::keep); its routes capture a shared pointer to it.
class HttpTransport : public std::enable_shared_from_this<HttpTransport> {
  public:
    explicit HttpTransport(ServerCore& core);
    ~HttpTransport();

    void mount(App& app, std::string_view path);

  private:
    void post(Request& req, Responder responder);
    /// A POST of the 2026-07-28 envelope: no session, headers checked against the body (400 -32020), an unknown
    /// version 400 -32022, an unknown method 404 -32601; then served on a throwaway session.
    void post_modern(Request& req, Responder responder, const std::shared_ptr<Incoming>& incoming,
                     const EnvelopeRead& read);
    /// The HeaderMismatch message for MCP-Protocol-Version against the body's version, or empty when they agree.
    static std::string version_mismatch(Request& req, std::string_view body_version);
    /// The HeaderMismatch message for Mcp-Method, Mcp-Name and Mcp-Param-* against the body, or empty.
    std::string header_mismatch(Request& req, const Message& message);
    void get(Request& req, Responder responder);
    void del(Request& req, Responder responder);
    /// A GET's stream: the rest of a resumable POST stream (Last-Event-ID "<stream>-<n>": held here, else read from
    /// the session store) or the session's own.
    void attach_stream(Request& req, Responder responder, const std::shared_ptr<HttpSession>& s);

    /// Where a POST's messages go: its session (new at initialize, throwaway when stateless) and the headers of
    /// its answer.
    struct PostTarget {
        std::shared_ptr<HttpSession> http;  // null when stateless
        std::shared_ptr<Session> session;
        std::vector<std::pair<std::string, std::string>> headers;
    };
    /// False after answering 406, 415 or 413.
    bool post_headers_ok(Request& req, Responder& responder);
    /// nullopt after answering 400/404 (no or an unknown session) or 429/503 (session limits).
    std::optional<PostTarget> target_of(Request& req, Responder& responder, bool initialize);
    /// The POST's channel: resumable, or cancelling `request_ids` when the client goes away.
    std::shared_ptr<PostChannel> channel_for(Responder responder, PostTarget& target, bool initialize,
                                             std::vector<std::string> request_ids, bool modern = false,
                                             bool force_sse = false);

    /// Runs `next` with the session the request names (read from the session store when there is one: on the
    /// database's thread then), or answers 400 (no id), 404 (unknown, ended, expired, another principal's) or 503
    /// (the store unreachable, too many sessions held here).
    using SessionNext = std::function<void(Request&, Responder, std::shared_ptr<HttpSession>)>;
    void with_session(Request& req, Responder responder, SessionNext next);
    /// with_session's continuation after the store answered.
    void loaded(Request& req, Responder responder, const std::string& id, const std::string& principal,
                SessionStore::Outcome outcome, std::optional<SessionRecord> record, const SessionNext& next);
    /// Handles a POST's parsed messages in its session.
    void deliver(Responder responder, const std::shared_ptr<Incoming>& incoming, PostTarget& target, bool initialize,
                 bool modern = false, bool force_sse = false);
    /// initialize with a session store: answered once the session's row is written.
    void deliver_initialize(Responder responder, const std::shared_ptr<Incoming>& incoming, PostTarget target);
    /// A live session's routing: its GET stream as the sink, its saver, attached to the core.
    void wire(const std::shared_ptr<HttpSession>& s);
    /// With a store: the rows of sessions used here since their last_seen was written are touched, expired rows
    /// deleted.
    void refresh_store();
    /// False after answering 400 for an MCP-Protocol-Version we do not speak.
    bool version_ok(Request& req, Responder& responder);
    /// False after answering 403 for a foreign Origin or Host (DNS rebinding).
    bool origin_ok(Request& req, Responder& responder);
    void end(const std::shared_ptr<HttpSession>& s);
    void sweep();
    /// With a store: reads the signals other processes left for the sessions held here and applies them
    /// (cancellations, clients' answers), every store_poll_ms.
    void schedule_poll();
    /// `periodic`: the timer's read, which schedules the next one (a read woken by a NOTIFY does not).
    void poll_signals(bool periodic);
    void apply(const SessionStore::Signal& signal);
    /// Sweeps idle sessions every quarter of the idle limit (1 s to 60 s), so they go without new requests too.
    void schedule_sweep();

    ServerCore& core_;
    SessionTable sessions_;
    std::shared_ptr<SessionStore> store_;  // null: sessions in memory only
    std::atomic<std::int64_t> last_sweep_ms_{0};
    std::string process_tag_;  // in the ids of our requests to clients: unique among the processes of a store
    std::mutex signals_mu_;
    std::int64_t polled_ms_ = 0;  // under signals_mu_: when the last poll began
    bool notified_ = false;       // PostgreSQL: NOTIFY wakes the reads; the timer is only a safety net
    std::unordered_map<std::string, std::int64_t> seen_;  // under signals_mu_: signals applied, by id (their time)
    // With a store, resumable_streams and stream_store_events: streams written to the store and resumed from it.
    std::shared_ptr<StoredStreams> stored_;
    std::string stream_prefix_;  // before the resumable streams' numbers: unique among the processes of a store
};

}  // namespace slipstream::mcp::detail
