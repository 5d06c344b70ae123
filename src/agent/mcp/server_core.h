// ServerCore: the transport-independent MCP server: JSON-RPC dispatch of every method over the registry.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "agent/mcp/call_state.h"
#include "agent/mcp/channel.h"
#include "agent/mcp/envelope.h"
#include "agent/mcp/jsonrpc.h"
#include "agent/mcp/registry.h"
#include "agent/mcp/session.h"
#include "agent/mcp/timers.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp::detail {

/// One request being dispatched.
struct Rpc {
    const std::shared_ptr<Session>& session;
    const std::shared_ptr<Document>& document;
    const Message& message;
    const std::shared_ptr<Channel>& channel;
    /// The request's 2026-07-28 envelope; nullptr for a handshake-era request (its session's negotiated state).
    const Envelope* envelope = nullptr;
};

struct Listener;

/// Thread-safe: transports call handle() from any thread, for any number of sessions.
class ServerCore {
  public:
    explicit ServerCore(ServerConfig config);
    ~ServerCore();

    const ServerConfig& config() const { return config_; }
    Registry& registry() { return registry_; }
    const std::shared_ptr<Timers>& timers() const { return timers_; }
    json::ParseOptions parse_limits() const;

    /// Parses `text` and handles it (handle()).
    void handle_text(const std::shared_ptr<Session>& session, std::string_view text,
                     const std::shared_ptr<Channel>& channel);
    /// Handles a parsed message or batch: every answer goes to `channel` (a batch's as one array); a document
    /// holding no request answers nothing. Batches only for a session on 2025-03-26.
    void handle(const std::shared_ptr<Session>& session, const Incoming& incoming,
                const std::shared_ptr<Channel>& channel);

    /// Runs the Call::request callback waiting for `message` (a client's response) in `session`; false when none
    /// waits for it (unknown id, timed out).
    bool answer_pending(const std::shared_ptr<Session>& session, const Message& message);

    /// Sessions receive list_changed and resources/updated notifications while attached.
    void attach(const std::shared_ptr<Session>& session);
    void detach(const Session* session);
    /// Cancels the session's calls in flight (no answers) and detaches it.
    void end_session(const std::shared_ptr<Session>& session);
    void resource_updated(std::string_view uri);
    /// Cancels every call in flight of every attached session, and wakes serve_stdio() to end.
    void stop();

    /// Keeps a transport alive as long as the server.
    void keep(std::shared_ptr<void> transport);
    /// serve_stdio()'s wake-up descriptor (-1 when not serving), written by stop().
    std::atomic<int> stdio_wake_fd{-1};
    std::atomic<bool> stopping{false};
    /// The implicit session of handle_message().
    std::shared_ptr<Session> embedded_session();

  private:
    void dispatch(const Rpc& req);
    void request(const Rpc& req);
    void notification(const std::shared_ptr<Session>& session, const Message& message);
    /// A client's answer to a request this server sent (Call::request).
    void response(const std::shared_ptr<Session>& session, const Message& message);
    /// A request carrying the 2026-07-28 envelope: served from what it carries, whatever its session negotiated.
    void modern_request(const Rpc& req, EnvelopeRead read);
    // The 2026-07-28 methods (modern_methods.cpp).
    void discover(const Rpc& req);
    void listen(const Rpc& req);
    std::vector<std::shared_ptr<Listener>> listeners();
    void drop_listener(const Listener* listener);
    /// list_changed of `kind` (`method`) to the listeners that asked for it; resources/updated to those naming `uri`.
    void notify_listeners(ListKind kind, std::string_view method);
    void notify_listeners_updated(std::string_view uri);
    /// Ends every listen stream with its result (the spec's graceful closure).
    void close_listeners();
    void broadcast(ListKind kind);
    std::vector<std::shared_ptr<Session>> sessions();

    // Lifecycle and session state (server_core.cpp).
    void initialize(const Rpc& req);
    void set_level(const Rpc& req);
    void subscribe(const Rpc& req, bool on);
    /// Saves the session (Session::save), then answers `{}` (or -32603 when the save failed).
    void answer_saved(const Rpc& req);
    // Lists (list_methods.cpp).
    void list(const Rpc& req, ListKind kind);
    void list_templates(const Rpc& req);
    // Calls of handlers (call_methods.cpp).
    void call_tool(const Rpc& req);
    void read_resource(const Rpc& req);
    void get_prompt(const Rpc& req);
    void complete(const Rpc& req);
    /// A CallState for `req`, admitted into its session (nullptr after answering a duplicate id or a full session).
    /// Under the envelope (tools/call, prompts/get, resources/read): reads the retry's requestState and
    /// inputResponses into `s` (false after answering -32602 for a state that fails verification).
    bool take_inputs(const Rpc& req, const std::shared_ptr<CallState>& s, std::string_view name);
    std::shared_ptr<CallState> admit(const Rpc& req, std::string name, std::uint32_t timeout_ms,
                                     std::optional<std::string> timeout_answer);

    ServerConfig config_;
    Registry registry_;
    std::shared_ptr<Timers> timers_;
    std::mutex sessions_mu_;
    std::vector<std::weak_ptr<Session>> sessions_;
    std::vector<std::shared_ptr<void>> transports_;
    std::shared_ptr<Session> embedded_;
    std::vector<std::shared_ptr<Listener>> listeners_;  // under sessions_mu_: the open listen streams
    std::string server_info_member_;
    std::string state_key_;  // HMAC key of request states (ServerConfig::request_state_key, else random) //
                             // `"_meta":{"io.modelcontextprotocol/serverInfo":{...}}`
};

/// `{"jsonrpc":"2.0","id":..,"result":..}` to the request's channel; under a 2026-07-28 envelope with `resultType`,
/// `extra_members` (caching hints) and the server's identity in `_meta`.
void answer_result(const Rpc& req, std::string_view result_json, std::string_view extra_members = {});
/// A JSON-RPC error to the request's channel.
void answer_error(const Rpc& req, int code, std::string_view message, std::string_view data_json = {});
/// A string member of params, or nullptr when absent or not a string.
const json::Value* string_param(const Message& message, std::string_view key);

}  // namespace slipstream::mcp::detail
