// MCP: a Model Context Protocol server inside the engine: tools, resources and prompts over Streamable HTTP
// (mounted on an App) or stdio, tool arguments validated in C++ with the compiled JSON Schema before a tool runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipstream/json_view.h"

namespace slipstream {

class App;

namespace mcp {

namespace detail {
struct CallState;
class ServerCore;
}  // namespace detail

/// The protocol versions this server speaks, newest first: 2026-07-28 (each request carries its version, the
/// client's capabilities and log level in `_meta`; `server/discover`), then the versions of the initialize handshake
/// (the newest of those is offered at initialize to a client asking for one we do not know).
const std::vector<std::string>& supported_protocol_versions();

/// RFC 5424 severities, as `logging/setLevel` and `notifications/message` name them.
enum class LogLevel : std::uint8_t { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };

/// What a tool call answers: `content_json` is the JSON array of content blocks (`[{"type":"text","text":...}]`);
/// `structured_json`, when not empty, the `structuredContent` object (checked against the tool's output schema:
/// a mismatch is a JSON-RPC error -32603 without internals, as the SDKs do). `is_error` marks a tool error result.
struct ToolResult {
    std::string content_json = "[]";
    std::string structured_json;
    bool is_error = false;
    /// The caller vouches that `structured_json` is a JSON object valid against the tool's output schema (it was
    /// serialized from a value of the output type): it is sent as it is, not parsed and checked again. False (the
    /// default): checked, and a result that is not valid answers an internal error.
    bool structured_checked = false;

    /// A tool error result with one text block (`isError: true`).
    static ToolResult error(std::string_view message);
    /// One text block.
    static ToolResult text(std::string_view text);
};

/// One running request of a handler (a tool call, a resource read, a prompt get, a completion): its validated
/// arguments, the client's context, notifications to the client, and the answer. Move-only. Answer exactly once,
/// from any thread; a Call destroyed unanswered answers an internal error (-32603), so a lost handler never hangs
/// a client. Every method is thread-safe.
class Call {
  public:
    explicit Call(std::shared_ptr<detail::CallState> state);
    Call(Call&&) noexcept;
    Call& operator=(Call&&) noexcept;
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;
    ~Call();

    /// The arguments object (a tool's validated `arguments`, a prompt's `arguments`, a template's URI variables
    /// as strings); valid until the call is answered. `arguments_json()` is the same as compact JSON text.
    JsonView arguments() const;
    std::string_view arguments_json() const;
    /// The request's `_meta` object as JSON text ("{}" when absent).
    std::string_view meta_json() const;
    /// The tool, prompt or resource name, or the resource URI read.
    std::string_view name() const;
    /// The MCP session id (empty over stdio and for a stateless server) and the principal the engine's auth
    /// gave the HTTP request (empty when auth is off).
    std::string_view session_id() const;
    std::string_view principal() const;
    /// The JSON-RPC request id as JSON text (`1`, `"abc"`).
    std::string_view request_id() const;

    /// True once the client cancelled this request (notifications/cancelled), its HTTP request went away
    /// (unless ServerConfig::resumable_streams), the tool's timeout fired, or the server is stopping. The answer is
    /// then dropped.
    bool cancelled() const;
    /// Runs `fn` once when cancelled() turns true (at once when it already is), on an engine thread: it must be
    /// quick and must not block. Replaces an earlier callback.
    void on_cancel(std::function<void()> fn);

    /// notifications/progress for the request's progressToken; false (nothing sent) when the request carried none,
    /// `progress` did not increase, or the call is over.
    bool progress(double progress, std::optional<double> total = std::nullopt, std::string_view message = {});
    /// notifications/message with `data_json` (any JSON value) when `level` is at or above the session's
    /// logging/setLevel level (default: info); false when filtered out or the call is over.
    bool log(LogLevel level, std::string_view data_json, std::string_view logger = {});

    /// Sends a request to the client (`sampling/createMessage`, `elicitation/create`, `roots/list`, ...) with
    /// `params_json` (a JSON object) over this call's stream, and runs `on_answer` once, on an engine thread (quick,
    /// non-blocking; it may answer this call): (true, the result object as JSON text) when the client answers, or
    /// (false, an error object `{"code":..,"message":..}`) when it answers an error or not within `timeout_ms`
    /// (0: the tool timeout of ServerConfig). Returns false, and never runs `on_answer`, when the call is over, the
    /// params are not a JSON object, the server is stateless (the answer could not find this call), or the client
    /// did not declare the capability the method needs at initialize
    /// (`sampling`, `elicitation`, `roots`).
    /// Under protocol 2026-07-28 (multi round-trip requests) a server sends no request of its own: the call ends
    /// with an `input_required` result carrying the request (and a sealed `requestState`), cancel callbacks run, and
    /// the client retries the original request with its answer; the handler then runs again from the start, and the
    /// same request (the n-th of this handler) runs `on_answer` at once, before request() returns. A handler asking
    /// the client therefore must make the same requests in the same order on each run. Only tools/call, prompts/get
    /// and resources/read may ask; the capability comes from the request's `_meta`.
    bool request(std::string_view method, std::string_view params_json,
                 std::function<void(bool ok, std::string json)> on_answer, std::uint32_t timeout_ms = 0);
    /// Multi round-trip requests (protocol 2026-07-28; tools/call, prompts/get and resources/read): the client's
    /// answer to the input request `key` that this retry carries (in its `inputResponses`, or kept from earlier
    /// rounds in the sealed `requestState`), as the JSON text of the result object; nullopt when it carries none.
    std::optional<std::string> input_response(std::string_view key) const;
    /// Ends the call with an `input_required` result asking the client for `input_requests_json`, an InputRequests
    /// object: `{"<key>":{"method":"elicitation/create"|"sampling/createMessage"|"roots/list","params":{...}}, ...}`.
    /// Its `requestState` (sealed: ServerConfig::request_state_key) carries the answers received so far, so a later
    /// round still sees them through input_response(). The client retries the request with its answers and the
    /// handler runs again from the start. Cancel callbacks run. False, nothing sent, when the request is not of
    /// 2026-07-28 or may not ask (completion/complete, subscriptions/listen), the object is malformed or empty, a
    /// method needs a capability the request's `_meta` does not declare, or the call is over.
    bool require_input(std::string_view input_requests_json);
    /// The `capabilities` object the client sent at initialize, as JSON text ("{}" over stateless HTTP).
    std::string client_capabilities_json() const;

    /// Ends the connection carrying this call's SSE stream without ending the call (SEP-1699 polling, so a long
    /// call holds no connection): the client reconnects after the stream's retry delay with GET and Last-Event-ID
    /// and reads the rest there. Opens the stream first when it is not open yet. Only for resumable streams
    /// (ServerConfig::resumable_streams); false otherwise, or when the call is over.
    bool release_stream();

    /// Answers a tools/call.
    bool reply(ToolResult result);
    /// Answers any request with its result object as JSON text (resources/read: `{"contents":[...]}`,
    /// prompts/get: `{"description":...,"messages":[...]}`, completion/complete: `{"completion":{...}}`).
    bool reply_json(std::string_view result_object_json);
    /// Answers with a JSON-RPC error (say -32602 invalid params for an unknown prompt argument). `message` is
    /// sent as given: keep internals out of it. Under 2026-07-28, -32021 (MissingRequiredClientCapability, `data`
    /// `{"requiredCapabilities":{"sampling":{}}}`) is answered over HTTP with status 400, as the version requires.
    bool fail(int code, std::string_view message, std::string_view data_json = {});

  private:
    std::shared_ptr<detail::CallState> state_;
};

using CallHandler = std::function<void(Call)>;

struct Tool {
    std::string name;  // 1-128 of [A-Za-z0-9_.-] (the 2025-11-25 rule)
    std::string title;
    std::string description;
    /// JSON Schema (draft 2020-12) of the arguments object; compiled when registered (a bad schema throws
    /// std::invalid_argument). Arguments failing it never reach the handler: the call answers an `isError`
    /// result naming each failing JSON pointer.
    std::string input_schema_json = R"({"type":"object"})";
    std::string output_schema_json;  // empty: none; else structuredContent is checked against it
    std::string annotations_json;    // empty: none; else the ToolAnnotations object
    std::string meta_json;           // empty: none; else `_meta`
    CallHandler handler;
    /// Cancels the call (and answers an `isError` "timed out" result) after this long; 0: ServerConfig's default.
    std::uint32_t timeout_ms = 0;
    /// Calls of this tool running at once; more wait in order (0: no limit).
    std::uint32_t max_concurrency = 0;
};

struct Resource {
    std::string uri;
    std::string name;
    std::string title;
    std::string description;
    std::string mime_type;
    std::optional<std::uint64_t> size;
    std::string annotations_json;
    CallHandler handler;  // answers reply_json({"contents":[{"uri":...,"mimeType":...,"text"|"blob":...}]})
};

/// An RFC 6570 level-1 template (`file:///{path}`, `users://{id}/profile`): resources/read of a matching URI
/// calls `handler` with the variables as the arguments object (strings).
struct ResourceTemplate {
    std::string uri_template;
    std::string name;
    std::string title;
    std::string description;
    std::string mime_type;
    std::string annotations_json;
    CallHandler handler;
};

struct PromptArgument {
    std::string name;
    std::string description;
    bool required = false;
};

struct Prompt {
    std::string name;
    std::string title;
    std::string description;
    std::vector<PromptArgument> arguments;
    CallHandler handler;  // answers reply_json({"description":...,"messages":[...]}); missing required -> -32602
};

/// completion/complete: `ref_json` is the `ref` object ({"type":"ref/prompt","name":...} or
/// {"type":"ref/resource","uri":...}), arguments() holds {"name":..., "value":..., "context": {...}}.
/// Answers reply_json({"completion":{"values":[...],"total":N,"hasMore":false}}).
using CompletionHandler = std::function<void(std::string_view ref_json, Call)>;

struct ServerConfig {
    std::string name = "slipstream";
    std::string version = "0.1.0";
    std::string title;
    std::string instructions;

    /// Streamable HTTP.
    /// Origin header values accepted besides same-host ones (`http://localhost:*` style patterns allowed);
    /// a request with another Origin is refused 403 (DNS rebinding).
    std::vector<std::string> allowed_origins;
    /// Answer POSTs with application/json even when the client accepts text/event-stream (no notifications
    /// before the answer are then possible over the POST; they go to the GET stream).
    bool json_response = false;
    /// No Mcp-Session-Id: every request stands alone (any worker can serve it); no GET stream.
    bool stateless = false;
    std::uint32_t session_idle_ms = 30 * 60 * 1000;  // an idle session is forgotten after this
    std::uint32_t max_sessions = 10000;
    std::uint32_t max_sessions_per_principal = 100;
    std::size_t max_message_bytes = 4 * 1024 * 1024;  // a larger JSON-RPC body: 413
    std::size_t max_batch = 100;                      // messages in one 2025-03-26 batch
    std::uint32_t tool_timeout_ms = 60 * 1000;        // Tool::timeout_ms when 0
    std::size_t page_size = 100;                      // items per list page (nextCursor beyond)
    /// Events kept per session stream for Last-Event-ID resumption.
    std::size_t replay_events = 256;
    /// JSON limits of one message: nesting depth and members of one object or array (a deeper or larger
    /// message is an invalid request, -32600).
    std::size_t max_json_depth = 64;
    std::size_t max_json_members = 10000;
    /// Requests of one session in flight at once; more are refused with -32000 "Server busy". Also bounds the
    /// requests to the client pending per session and the resumable POST streams kept per session.
    std::size_t max_calls_per_session = 256;
    /// Failing JSON pointers named in an invalid-arguments tool error (the first ones found).
    std::size_t max_reported_errors = 16;

    // Added after the first bindings (kept last so earlier members keep their order): Streamable HTTP.
    /// Host header values accepted (with or without a port; "*": any) from a client on a loopback address besides
    /// IP literals and single-label names (localhost): a browser tricked by DNS rebinding reaches a local server
    /// with the attacker's domain as Host, refused 403. Clients on other addresses are not checked (a proxy on the
    /// same machine serving public names lists them here).
    std::vector<std::string> allowed_hosts;
    /// A POST's SSE stream survives its connection: its events carry ids ("<stream>-<n>", after a priming event of
    /// empty data for 2025-11-25 clients) and are kept (replay_events of them), a client that lost the connection
    /// reads the rest with GET and Last-Event-ID, and the request is not cancelled by the disconnect (the spec's
    /// SHOULD). Off: a disconnect cancels the POST's requests. Stateful sessions only.
    bool resumable_streams = false;
    /// The `retry:` field (ms) opening a resumable stream: how long a client waits before reconnecting.
    std::uint32_t stream_retry_ms = 1000;

    // Added with sessions in a database (kept after the members above).
    /// Resources one session may subscribe to; one more is refused with -32000.
    std::size_t max_subscriptions = 1000;
    /// Where Streamable HTTP sessions are kept beyond this process: "sqlite:///path/mcp.db" or "postgresql://...".
    /// Empty (the default): in memory only. With a store, a session's negotiated state (principal, version, client
    /// capabilities, log level, subscriptions, last use) is written at initialize and on each change before the
    /// answer, and read by any process on the same database: the session survives a restart, and processes or
    /// replicas share it. Calls in flight and requests to the client stay in the process that holds them; the events
    /// of resumable streams are stored too (stream_store_events) and resume on any process (see the MCP README).
    /// Opened, with its migrations, by mount(), which throws std::runtime_error when it cannot be. Ignored when
    /// stateless.
    std::string store_url;
    /// A session held in this process is read again from the store when last read longer ago than this (0: at
    /// every request, so a DELETE or a change made through another process applies at once; more: fewer reads,
    /// and another process's change is seen up to this late).
    std::uint32_t store_check_ms = 0;
    /// PostgreSQL connections (SQLite: worker threads, at most 8) of the store.
    std::uint32_t store_connections = 4;
    /// Connecting, waiting for a connection, and each statement of the store; past it the request gets 503.
    std::uint32_t store_timeout_ms = 5000;

    // Added with the authorization metadata (kept after the members above).
    /// OAuth 2.0 Protected Resource Metadata (RFC 9728), which the spec's Authorization section asks of a server
    /// behind OAuth: when `resource` is set, mount() serves the document (application/json, no credentials needed)
    /// at /.well-known/oauth-protected-resource and at /.well-known/oauth-protected-resource<mount path>, and each
    /// 401 of the engine's authentication (ServerOptions::auth) names it: `WWW-Authenticate: Bearer
    /// resource_metadata="<url>"`. Checking the tokens stays the engine's (say ServerOptions::jwt_audience set to
    /// `resource`). mount() throws std::invalid_argument naming the member for an invalid setting.
    /// The server's canonical URI (RFC 8707 §2), e.g. "https://mcp.example.com/mcp": absolute http(s), no fragment.
    std::string resource;
    /// Issuer URLs of the authorization servers the client may use (at least one when `resource` is set).
    std::vector<std::string> authorization_servers;
    /// Scopes (RFC 6749 scope tokens) the client may request; empty: left out.
    std::vector<std::string> scopes_supported;
    /// How a bearer token may be sent: "header", "body", "query" (RFC 6750); empty: left out.
    std::vector<std::string> bearer_methods_supported = {"header"};
    /// A human-readable name of the resource; empty: left out.
    std::string resource_name;
    /// The document's URL named in WWW-Authenticate; empty: derived from `resource` (RFC 9728 §3.1: the well-known
    /// path inserted between its host and its path), which is right when `resource`'s path is the mount path.
    std::string resource_metadata_url;

    // Added with protocol 2026-07-28 (kept after the members above).
    /// `ttlMs` of the cacheable results of 2026-07-28 (server/discover, the lists, resources/read): how long a
    /// client may consider them fresh. 0 (the default): immediately stale (lists can change at any time; the
    /// list_changed notifications of subscriptions/listen tell when).
    std::uint32_t cache_ttl_ms = 0;
    /// Key (any bytes) of the HMAC-SHA256 sealing the `requestState` of input_required results (a handler's
    /// Call::request under 2026-07-28), so a client cannot alter it. Empty: a random key per Server, so a retry must
    /// reach the same process; set the same key on every replica to let any of them serve it.
    std::string request_state_key;
    /// How long a client may take to retry with the answers (the sealed state expires after this).
    std::uint32_t request_state_ttl_ms = 10 * 60 * 1000;

    // Added with signals between the processes of a session store (kept after the members above).
    /// With `store_url`: how often this process reads the signals other processes left in the store for the calls
    /// it holds (a `notifications/cancelled`, a client's answer to Call::request that reached another process), so
    /// they apply here within about this long (SQLite). PostgreSQL's NOTIFY wakes the read at once; this period
    /// (at least 1 s there) only catches a lost notification. 0: never (they are then lost, as without a store).
    std::uint32_t store_poll_ms = 100;

    // Added with resumable streams in the session store (kept after the members above).
    /// With `store_url` and `resumable_streams`: each event of a resumable POST stream is also written to the store,
    /// so a GET with its Last-Event-ID on another process (or after a restart) replays the events after it and then
    /// continues with the ones the call's process writes (read every store_poll_ms; at once on PostgreSQL's NOTIFY).
    /// Events kept per stream: the oldest go beyond it. 0: streams are not stored (they resume only where they run).
    std::size_t stream_store_events = 256;
    /// Bytes of the events kept per stream (the oldest go beyond it); a larger single event is not kept (an answer
    /// too large ends a resumed stream without it).
    std::size_t stream_store_bytes = 4 * 1024 * 1024;
    /// Stored events older than this are deleted (by the sweep), and a resumed stream whose call wrote nothing for
    /// this long ends.
    std::uint32_t stream_store_ttl_ms = 10 * 60 * 1000;
};

/// An MCP server: a registry of tools, resources, prompts and their handlers, serving JSON-RPC over Streamable
/// HTTP on an App (`mount`) and over stdio (`serve_stdio`). Register before serving; changes after the first
/// request (add/remove a tool, a resource or a prompt) are allowed from any thread and send the matching
/// `notifications/*/list_changed` to the sessions that may receive them.
class Server {
  public:
    explicit Server(ServerConfig config = {});
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// Each throws std::invalid_argument for an invalid name, URI, template or schema, or a duplicate.
    Server& tool(Tool tool);
    Server& resource(Resource resource);
    Server& resource_template(ResourceTemplate resource_template);
    Server& prompt(Prompt prompt);
    Server& completion(CompletionHandler handler);
    /// Returns false when there was none of that name.
    bool remove_tool(std::string_view name);
    bool remove_resource(std::string_view uri);
    bool remove_prompt(std::string_view name);
    /// notifications/resources/updated to the sessions subscribed to `uri`.
    void resource_updated(std::string_view uri);

    /// Serves Streamable HTTP at `path` (POST, GET, DELETE) on `app`: call before app.start(). The server must
    /// outlive the app's serving.
    void mount(App& app, std::string_view path = "/mcp");
    /// Serves newline-delimited JSON-RPC on `in_fd` / `out_fd` until end of input (or stop()); one session.
    /// Blocks; returns 0 at a clean end of input.
    int serve_stdio(int in_fd = 0, int out_fd = 1);
    /// Ends serve_stdio and cancels running calls. Thread-safe.
    void stop();

    /// One JSON-RPC message or batch (text) handled as over stdio with one implicit session; `send` gets every
    /// outgoing message (responses and notifications) as JSON text, from any thread. For embedding and tests.
    void handle_message(std::string_view message, std::function<void(std::string)> send);

    const ServerConfig& config() const;

  private:
    std::unique_ptr<detail::ServerCore> core_;
};

}  // namespace mcp
}  // namespace slipstream
