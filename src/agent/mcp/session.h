// Session: what one MCP client negotiated (version, log level, subscriptions) and its requests in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/mcp/protocol.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp::detail {

struct CallState;

/// Thread-safe (one mutex). Owned by its transport (the HTTP session table, the stdio loop) and shared with calls.
class Session {
  public:
    Session(std::string id, std::string principal) : id_(std::move(id)), principal_(std::move(principal)) {}

    const std::string& id() const { return id_; }
    const std::string& principal() const { return principal_; }

    /// The negotiated version (set at initialize; stateless HTTP sets it from the request's header).
    void set_version(std::string_view version);
    std::string version() const;
    Features features() const;
    /// True once initialize was answered (requests other than ping need it).
    bool initialized() const;
    void set_initialized();

    LogLevel log_level() const;
    void set_log_level(LogLevel level);

    /// False (nothing changed) when `max` URIs are subscribed already.
    bool subscribe(const std::string& uri, std::size_t max);
    void unsubscribe(const std::string& uri);
    bool subscribed(const std::string& uri) const;
    std::vector<std::string> subscriptions() const;
    /// A session read back from the session store: initialized, with what it negotiated elsewhere.
    void restore(std::string_view version, std::string capabilities, LogLevel level,
                 const std::vector<std::string>& subscriptions);

    /// Writes the session's state where it outlives this process (the session store); `done(saved)` runs once,
    /// on any thread. Without a saver (memory only) `done(true)` runs at once.
    using SaveFn = std::function<void(const Session&, std::function<void(bool)>)>;
    void set_saver(SaveFn saver);
    void save(std::function<void(bool)> done) const;

    /// Registers a request in flight under its id; false when the id is in use or `max` are in flight.
    enum class Admit : unsigned char { kOk, kDuplicateId, kFull };
    Admit admit(const std::string& id_json, const std::shared_ptr<CallState>& call, std::size_t max);
    void forget(const std::string& id_json, const CallState* call);
    /// The call in flight with this id, or nullptr.
    std::shared_ptr<CallState> find(const std::string& id_json) const;
    /// Every call in flight (to cancel them when the session ends).
    std::vector<std::shared_ptr<CallState>> calls() const;

    /// The client's `capabilities` object from initialize (compact JSON; "{}" before).
    void set_client_capabilities(std::string json);
    std::string client_capabilities() const;

    /// False for a stateless HTTP request's throwaway session: the client's answer to a request of ours could not
    /// find it, so Call::request refuses.
    void set_answerable(bool on);
    bool answerable() const;

    /// Requests this server sent the client, awaiting its answer: `on_answer(ok, result or error JSON)`.
    using AnswerFn = std::function<void(bool, std::string)>;
    /// A new request id (JSON text) registered with `on_answer`; false when `max` are pending.
    std::optional<std::string> add_pending(AnswerFn on_answer, std::size_t max);
    void set_pending_timer(const std::string& id_json, std::uint64_t timer_id);
    /// Removes and returns the pending request `id_json` (its timer id in `timer_id`), or an empty function.
    AnswerFn take_pending(const std::string& id_json, std::uint64_t* timer_id = nullptr);

    /// Where a cancellation or a client's answer that finds nothing here goes (the session store, for the process
    /// that holds the call: `kind` "cancel" or "answer", `target` the request id as JSON, `payload` the message).
    using Forwarder = std::function<void(std::string_view kind, const std::string& target, std::string payload)>;
    void set_forwarder(Forwarder forwarder);
    /// False (nothing sent) without a forwarder.
    bool forward(std::string_view kind, const std::string& target, std::string payload) const;
    /// Ids of our requests to the client become `"s<prefix><n>"` strings (unique across the processes sharing a
    /// session, so an answer reaching another process names the one that asked); empty: `"s<n>"`.
    void set_request_prefix(std::string prefix);

    /// Messages not tied to a request (list_changed, resources/updated) go to `sink` (the GET stream, stdout).
    void set_sink(std::function<void(std::string)> sink);
    /// Sends through the sink; dropped when there is none.
    void push(std::string message) const;

  private:
    const std::string id_;
    const std::string principal_;
    mutable std::mutex mu_;
    std::string version_;
    Features features_{};
    bool initialized_ = false;
    LogLevel log_level_ = LogLevel::kInfo;
    std::unordered_set<std::string> subscriptions_;
    std::unordered_map<std::string, std::weak_ptr<CallState>> calls_;
    std::function<void(std::string)> sink_;
    SaveFn saver_;
    std::string client_capabilities_ = "{}";
    bool answerable_ = true;
    std::uint64_t next_request_ = 1;
    Forwarder forwarder_;
    std::string request_prefix_;
    std::unordered_map<std::string, std::pair<AnswerFn, std::uint64_t>> pending_;
};

}  // namespace slipstream::mcp::detail
