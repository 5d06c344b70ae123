// StreamRecorder: writes the events of one resumable POST stream to the session store, in order and bounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "agent/mcp/session_store.h"

namespace slipstream::mcp::detail {

/// Thread-safe. One write in flight at a time (events queued meanwhile go in the next one), so the store holds a
/// prefix of the stream whenever a reader looks: a reader that saw seq n has seen everything before it that is kept.
/// Keeps at most `max_events` events and `max_bytes` bytes of them in the store (the oldest are deleted); an event
/// larger than `max_bytes` is not kept (a final one is replaced by an empty final marker, so readers end).
class StreamRecorder : public std::enable_shared_from_this<StreamRecorder> {
  public:
    struct Limits {
        std::size_t max_events = 256;
        std::size_t max_bytes = 4 * 1024 * 1024;
    };
    StreamRecorder(std::shared_ptr<SessionStore> store, std::string session_id, std::string stream, Limits limits)
        : store_(std::move(store)), session_id_(std::move(session_id)), stream_(std::move(stream)), limits_(limits) {}

    void record(std::uint64_t seq, const std::string& data, bool final);

  private:
    struct Batch {
        std::vector<SessionStore::StoredEvent> events;
        std::uint64_t drop_through = 0;
    };
    bool take_locked(Batch& batch);  // under mu_: what is queued, for a write (false: nothing)
    void write(Batch batch);

    const std::shared_ptr<SessionStore> store_;
    const std::string session_id_;
    const std::string stream_;
    const Limits limits_;
    std::mutex mu_;
    std::vector<SessionStore::StoredEvent> queued_;
    std::deque<std::pair<std::uint64_t, std::size_t>> kept_;  // seq and size of the events in the store
    std::size_t kept_bytes_ = 0;
    std::uint64_t drop_through_ = 0;  // delete up to this seq with the next write
    bool writing_ = false;
};

}  // namespace slipstream::mcp::detail
