// DbListener: PostgreSQL LISTEN on a connection of its own that reconnects and LISTENs again when it is lost.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "store/database/database.h"

namespace slipstream::store {

class ListenerImpl;

/// What happened to a DbListener's connection.
enum class ListenerEvent : std::uint8_t {
    kConnectionLost,  // the connection broke (server restarted, backend terminated): reconnecting with backoff
    kReconnected,     // a new connection LISTENs to every channel again; NOTIFYs sent meanwhile may be lost
};

/// A DbListener's callbacks; both run on the database's thread.
struct ListenerHandlers {
    std::function<void(const DbNotification&)> on_notification;
    /// kConnectionLost once per outage (`why`: the driver's reason), then kReconnected (`why` ok) once LISTEN ran
    /// again for every channel. May be empty.
    std::function<void(ListenerEvent event, const base::Status& why)> on_event;
};

/// A connection that only LISTENs (made by Database::open_listener). When it breaks, the listener reconnects
/// after 100 ms, then doubling up to 5 s between attempts, re-issues LISTEN for its channels and reports
/// kReconnected: the caller learns that notifications may have been missed and can re-read what it watches.
/// Any thread; callbacks on the database's thread. Closing (or destroying it) ends the LISTENs and the
/// connection. Calls after the Database is gone are answered kCancelled.
class DbListener {
  public:
    using Done = std::function<void(base::Status status)>;

    explicit DbListener(std::shared_ptr<ListenerImpl> impl) : impl_(std::move(impl)) {}
    ~DbListener();
    DbListener(const DbListener&) = delete;
    DbListener& operator=(const DbListener&) = delete;

    /// LISTEN `channel` (quoted as an identifier; a NUL byte is refused with kInvalidArgument); `done` hears the
    /// server's answer. While reconnecting the channel is kept and `done` hears ok at once: it is LISTENed
    /// with the others when the connection is back.
    void listen(std::string channel, Done done);
    /// UNLISTEN `channel`; it is no longer re-issued after a reconnect.
    void unlisten(std::string channel, Done done);
    /// Connected now (false while reconnecting, and after close()). Any thread.
    bool connected() const;
    /// Ends the LISTENs and closes the connection. Idempotent.
    void close();

  private:
    std::shared_ptr<ListenerImpl> impl_;
};

}  // namespace slipstream::store
