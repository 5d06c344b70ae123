// CopyStream: COPY FROM STDIN data made on another thread while the COPY runs (Database::copy_in_stream).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"

namespace slipstream::store {

/// The producer pushes pieces of COPY data (in the statement's format; rows may span pieces) from any thread while
/// the database's thread sends what has arrived, so making the data and sending it overlap. finish() ends the data;
/// fail(reason) aborts the COPY (CopyFail: nothing is kept). Pieces wait here until sent: the producer bounds what
/// it pushes ahead. Thread-safe.
class CopyStream : public std::enable_shared_from_this<CopyStream> {
  public:
    void push(std::string piece);
    void finish();
    void fail(std::string reason);

    /// The consumer (the database's thread): the next piece in `out`; ok with `out` empty once finished; the
    /// failure; or postgres::copy_data_pending() when nothing has arrived yet (`wake` runs at the next push).
    base::Status pull(std::string& out);
    /// Called (outside the lock) when a piece or the end arrives while the consumer waits.
    void set_wake(std::function<void()> wake);

  private:
    void notify(std::unique_lock<std::mutex>& lock);

    std::mutex mutex_;
    std::deque<std::string> pieces_;
    bool finished_ = false;
    bool failed_ = false;
    std::string reason_;
    bool waiting_ = false;
    std::function<void()> wake_;
};

}  // namespace slipstream::store
