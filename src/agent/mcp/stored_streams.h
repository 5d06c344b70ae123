// StoredStreams: resumable streams continued from the session store (a GET with Last-Event-ID for a stream that
// another process, or this one before a restart, produced).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/mcp/session_store.h"
#include "slipstream/sse.h"

namespace slipstream::mcp::detail {

/// Thread-safe. Each followed stream first gets the stored events after the client's id, then, at each poll(),
/// the events written since; it ends after the stream's final event, when its session ends here, when the client
/// leaves, or when nothing was written for `ttl_ms`.
class StoredStreams : public std::enable_shared_from_this<StoredStreams> {
  public:
    struct Limits {
        std::size_t max_followed = 1000;  // streams followed at once by this process (the oldest ends beyond)
        std::size_t batch = 64;           // events read per stream and query
        std::uint32_t ttl_ms = 10 * 60 * 1000;
    };
    StoredStreams(std::shared_ptr<SessionStore> store, Limits limits) : store_(std::move(store)), limits_(limits) {}

    /// Continues `stream` of `session_id` after event `after` on `out` when the store knows that stream of that
    /// session; else `unknown` gets `out` back (nothing was sent on it).
    void resume(const std::string& session_id, const std::string& stream, std::uint64_t after, EventStream out,
                std::function<void(EventStream)> unknown);
    /// Reads what the followed streams' producers wrote since the last read.
    void poll();
    /// Ends the streams of a session that ended.
    void end_session(const std::string& session_id);
    bool empty() const;

  private:
    struct Follower {
        std::string session_id;
        std::string stream;
        std::uint64_t after = 0;  // the last event sent
        std::int64_t newest_ms = 0;
        std::shared_ptr<EventStream> out;
        bool reading = false;
        bool again = false;  // a notice came while a read was out: read once more when it ends
        bool ended = false;
    };
    void read(const std::shared_ptr<Follower>& f);
    /// Sends the events after f->after; true when the stream is over (final event sent, client gone).
    static bool deliver(Follower& f, std::vector<SessionStore::StoredEvent>& events);
    void drop(const std::shared_ptr<Follower>& f);

    const std::shared_ptr<SessionStore> store_;
    const Limits limits_;
    mutable std::mutex mu_;
    std::vector<std::shared_ptr<Follower>> followers_;
};

}  // namespace slipstream::mcp::detail
