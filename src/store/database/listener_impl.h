// ListenerImpl: a DbListener's connection on the database's loop: LISTENs, loss, backoff and reconnect.
#pragma once

#include <atomic>
#include <memory>
#include <set>
#include <string>

#include "net/timer.h"
#include "store/database/db_listener.h"
#include "store/postgres/connection.h"

namespace slipstream::store {

class DatabaseImpl;

/// Loop thread, except connected() and the posting entry points DbListener calls. Holds its DatabaseImpl, which
/// holds it in `listeners_` until it closes (the Database's stop closes it on the loop).
class ListenerImpl : public std::enable_shared_from_this<ListenerImpl> {
  public:
    static constexpr std::int64_t kFirstRetryNs = 100'000'000;  // the first reconnect attempt after a loss
    static constexpr std::int64_t kMaxRetryNs = 5'000'000'000;  // the longest wait between attempts

    ListenerImpl(std::shared_ptr<DatabaseImpl> db, ListenerHandlers handlers);

    /// Loop thread: the first connection; `done` hears the listener once connected (or the failure).
    void start(Database::ListenerCallback done);
    /// Any thread.
    void listen(std::string channel, DbListener::Done done);
    void unlisten(std::string channel, DbListener::Done done);
    void close();
    bool connected() const { return connected_.load() && !closing_.load(); }
    /// Loop thread: closes the connection now (close(), or the database stopping).
    void close_on_loop();

  private:
    void connect();
    void on_connected(base::Status status);
    void on_lost(const std::string& why);
    void relisten();
    void on_statement(const QueryResult& r, const DbListener::Done& done);
    bool post(std::function<void()> task, const DbListener::Done& refused);

    std::shared_ptr<DatabaseImpl> db_;
    ListenerHandlers handlers_;
    std::unique_ptr<postgres::Connection> conn_;  // null while waiting to reconnect
    std::set<std::string> channels_;
    Database::ListenerCallback opened_;  // until the first connection answers
    net::Timer retry_;
    std::int64_t backoff_ns_ = kFirstRetryNs;
    bool lost_ = false;    // kConnectionLost reported, kReconnected not yet
    bool closed_ = false;  // loop thread
    std::atomic<bool> closing_{false};
    std::atomic<bool> connected_{false};
};

/// `channel` as a quoted SQL identifier; kInvalidArgument for a NUL byte.
base::Result<std::string> quote_identifier(std::string_view channel);

}  // namespace slipstream::store
