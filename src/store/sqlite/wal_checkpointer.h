// WalCheckpointer: WAL checkpoints on a thread of their own, so that no COMMIT on a request's path copies the log
// into the database file.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"

struct sqlite3;

namespace slipstream::store::sqlite {

class Session;
struct DatabaseOptions;

/// SQLite's default checkpoints the WAL inside the COMMIT that grows it past 1000 pages: that commit copies the
/// pages into the database file and syncs it, milliseconds on the committing thread, and on a write connection
/// shared by requests every few hundred commits one request pays it. With a WalCheckpointer, each connection's
/// WAL hook (install()) only signals: after a COMMIT that leaves `pages` frames or more in the log, the
/// checkpointer's thread runs a PASSIVE checkpoint on a connection of its own (concurrent with writers and
/// readers; the next writer restarts the log once it was copied whole). The thread runs at `nice` (a lower
/// priority, so an I/O thread that wakes preempts it at once). A log past `pages` x kInlineFactor frames (the
/// checkpointer starved, or readers held it back) is checkpointed by the committing connection as before, so
/// the log stays bounded. Thread-safe; the destructor stops the thread (it must outlive the connections it was
/// installed on: they hold it, see Session::attach).
class WalCheckpointer {
  public:
    static constexpr std::size_t kInlineFactor = 8;

    /// Opens the checkpointer's connection (blocking: at start-up). Errors as Database::open's.
    static base::Result<std::shared_ptr<WalCheckpointer>> start(const DatabaseOptions& options);
    ~WalCheckpointer();
    WalCheckpointer(const WalCheckpointer&) = delete;
    WalCheckpointer& operator=(const WalCheckpointer&) = delete;

    /// Replaces `session`'s automatic checkpoints with this one's (the session keeps it alive).
    void install(Session& session, const std::shared_ptr<WalCheckpointer>& self);
    /// Background checkpoints run so far (tests and metrics).
    std::size_t checkpoints() const;

  private:
    WalCheckpointer(std::unique_ptr<Session> connection, std::size_t pages, int nice);
    static int on_commit(void* self, sqlite3* db, const char* schema, int pages);
    void loop();

    std::unique_ptr<Session> connection_;
    const std::size_t pages_;
    const int nice_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool requested_ = false;
    bool stopping_ = false;
    std::size_t done_ = 0;
    std::thread thread_;
};

}  // namespace slipstream::store::sqlite
