// CopyStream: COPY FROM STDIN data made on another thread while the COPY runs (Database::copy_in_stream).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"

namespace slipstream::store {

/// The producer pushes pieces of COPY data (in the statement's format; rows may span pieces) from any thread while
/// the database's thread sends what has arrived, so making the data and sending it overlap. finish() ends the data;
/// fail(reason) aborts the COPY (CopyFail: nothing is kept). Memory is bounded by `limit_bytes` (default 4 MiB):
/// push() says when the pieces waiting reach it, and the producer then waits with when_drained() until the
/// consumer has sent half of them. Thread-safe.
class CopyStream : public std::enable_shared_from_this<CopyStream> {
  public:
    static constexpr std::size_t kDefaultLimit = 4 << 20;

    explicit CopyStream(std::size_t limit_bytes = kDefaultLimit) : limit_(limit_bytes == 0 ? 1 : limit_bytes) {}

    /// Queues a piece; false once the pieces waiting hold `limit_bytes` or more (push no more until drained).
    bool push(std::string piece);
    void finish();
    void fail(std::string reason);
    /// `drained` runs once (outside the lock, on the consumer's thread or at once on this one) when the pieces
    /// waiting fall to half the limit or below, or the consumer has closed; true when it ran at once.
    bool when_drained(std::function<void()> drained);

    /// The consumer (the database's thread): the next piece in `out`; ok with `out` empty once finished; the
    /// failure; or postgres::copy_data_pending() when nothing has arrived yet (`wake` runs at the next push).
    base::Status pull(std::string& out);
    /// Called (outside the lock) when a piece or the end arrives while the consumer waits.
    void set_wake(std::function<void()> wake);
    /// The consumer is done (the COPY ended, however): later pieces are dropped and a waiting producer is told.
    void close();

    std::size_t buffered() const;

  private:
    void notify(std::unique_lock<std::mutex>& lock);
    void notify_drained(std::unique_lock<std::mutex>& lock);

    const std::size_t limit_;
    mutable std::mutex mutex_;
    std::deque<std::string> pieces_;
    std::size_t bytes_ = 0;
    bool finished_ = false;
    bool failed_ = false;
    bool closed_ = false;
    std::string reason_;
    bool waiting_ = false;
    std::function<void()> wake_;
    std::function<void()> drained_;
};

}  // namespace slipstream::store
