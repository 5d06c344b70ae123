// SessionChanges: wakes the followers of a session when it changed (an append, a delete), in this process.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace slipstream::agent::sessions {

/// A registry of wake callbacks by session id. Thread-safe. A callback runs on the thread that publishes (the
/// database's thread after a commit, the listener's, the sweeper's) without any lock of this class held, so it
/// may subscribe or unsubscribe; it must be quick (start a read, set a flag). A wake says only "look again":
/// a follower reads what is new after its own cursor, so a spurious or repeated wake is harmless.
class SessionChanges {
  public:
    using Wake = std::function<void()>;

    /// Registers `wake` for session `id`; the token unsubscribes it.
    std::uint64_t subscribe(const std::string& id, Wake wake);
    void unsubscribe(const std::string& id, std::uint64_t token);
    /// Wakes the followers of `id`.
    void publish(const std::string& id);
    /// Wakes every follower (a principal's sessions erased, a listener that reconnected, a periodic re-check).
    void publish_all();
    /// Drops every subscription (the store closing: their followers end).
    void clear();
    /// Followers registered now.
    std::size_t followers() const;

  private:
    mutable std::mutex mutex_;
    std::uint64_t next_token_ = 1;
    std::unordered_map<std::string, std::unordered_map<std::uint64_t, Wake>> by_session_;
};

}  // namespace slipstream::agent::sessions
