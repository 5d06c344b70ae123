// SessionTable: the Streamable HTTP sessions by Mcp-Session-Id, bound to principals, with limits and idle expiry.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/mcp/post_streams.h"
#include "agent/mcp/server_stream.h"
#include "agent/mcp/session.h"

namespace slipstream::mcp::detail {

struct HttpSession {
    std::shared_ptr<Session> session;
    std::shared_ptr<ServerStream> stream;
    std::shared_ptr<PostStreams> posts;  // resumable POST streams (ServerConfig::resumable_streams)
    std::chrono::steady_clock::time_point last_used;
    // With a session store (ServerConfig::store_url): when this process last read the session's row (steady ms),
    // when a request last used it here and the last_seen the store holds (epoch ms).
    std::atomic<std::int64_t> checked_ms{0};
    std::atomic<std::int64_t> used_ms{0};
    std::atomic<std::int64_t> stored_seen_ms{0};
};

/// Thread-safe.
class SessionTable {
  public:
    struct Limits {
        std::size_t max_sessions;
        std::size_t max_per_principal;
        std::chrono::milliseconds idle;
        std::size_t replay_events;
        std::size_t resumable_posts;  // POST streams kept per session for resumption
    };
    explicit SessionTable(Limits limits) : limits_(limits) {}

    enum class Outcome : unsigned char { kOk, kFull, kPrincipalFull, kNoRandom };
    /// A new session for `principal`; nullptr with the reason when a limit or the random generator refuses.
    std::shared_ptr<HttpSession> create(const std::string& principal, Outcome& outcome);
    /// The session `id` of `principal` read from the session store: the one held here already (touched), else a new
    /// entry under the same limits as create(); `fresh` tells which.
    std::shared_ptr<HttpSession> adopt(const std::string& id, const std::string& principal, Outcome& outcome,
                                       bool& fresh);
    /// Every session held (to refresh their rows in the store).
    std::vector<std::shared_ptr<HttpSession>> snapshot();
    /// The live session `id` of `principal` (touched), or nullptr: unknown, expired, ended or another principal's.
    std::shared_ptr<HttpSession> find(std::string_view id, std::string_view principal);
    /// Removes the session; returns it (nullptr when there was none of that principal).
    std::shared_ptr<HttpSession> remove(std::string_view id, std::string_view principal);
    /// Removes and returns the sessions idle past the limit (a session with an open GET stream is not idle).
    std::vector<std::shared_ptr<HttpSession>> expire();
    /// Removes and returns every session.
    std::vector<std::shared_ptr<HttpSession>> clear();

  private:
    std::shared_ptr<HttpSession> make(std::string id, const std::string& principal) const;
    /// Adds `s` under the limits (mu_ held).
    bool insert_locked(const std::shared_ptr<HttpSession>& s, Outcome& outcome);

    const Limits limits_;
    std::mutex mu_;
    std::unordered_map<std::string, std::shared_ptr<HttpSession>> by_id_;
    std::unordered_map<std::string, std::size_t> per_principal_;
};

}  // namespace slipstream::mcp::detail
