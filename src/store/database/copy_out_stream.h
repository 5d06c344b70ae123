// CopyOutStream: COPY TO STDOUT data handed to a consumer on another thread, bounded, with back-pressure.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "base/status.h"

namespace slipstream::store {

/// The database's thread offers each CopyData message (Database::copy_out_stream); a consumer on any thread takes
/// what has arrived. At most `limit_bytes` (default 4 MiB) wait here: offer() then answers
/// postgres::copy_data_pending() and the connection stops reading from its socket (so the server waits too) until
/// the consumer has taken enough to bring it to half the limit, when the resume hook runs. Thread-safe.
class CopyOutStream {
  public:
    static constexpr std::size_t kDefaultLimit = 4 << 20;

    explicit CopyOutStream(std::size_t limit_bytes = kDefaultLimit) : limit_(limit_bytes == 0 ? 1 : limit_bytes) {}

    // --- the producer (the database's thread) ---
    /// Keeps `data`: ok, copy_data_pending() once the limit is reached (read no more until resumed), or an error
    /// once the consumer closed (the rest is to be dropped).
    base::Status offer(std::string_view data);
    /// How a paused producer goes on (it posts to its loop); runs outside the lock, on the consumer's thread.
    void set_resume(std::function<void()> resume);
    /// The data ended (the COPY finished, failed or was cancelled): the consumer is told.
    void end();

    // --- the consumer ---
    /// Moves up to about `max_bytes` of what waits (whole pieces, at least one) into `out` (replaced); false when
    /// nothing waits.
    bool take(std::string& out, std::size_t max_bytes);
    /// True once end() ran and everything was taken.
    bool finished() const;
    /// `ready` runs once (outside the lock) when data waits or the data ended; at once (true) when that is so now.
    bool when_ready(std::function<void()> ready);
    /// The consumer gives up: what waits is dropped, offer() refuses from now on, and a paused producer resumes
    /// (to read and drop the rest).
    void close();

    std::size_t buffered() const;

  private:
    void resume_if_drained(std::unique_lock<std::mutex>& lock);

    static constexpr std::size_t kPiece = 64 * 1024;  // messages are gathered into pieces of about this size

    const std::size_t limit_;
    mutable std::mutex mutex_;
    std::deque<std::string> pieces_;
    std::size_t bytes_ = 0;
    bool paused_ = false;
    bool ended_ = false;
    bool closed_ = false;
    std::function<void()> resume_;
    std::function<void()> ready_;
};

}  // namespace slipstream::store
