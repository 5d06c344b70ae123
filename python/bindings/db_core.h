// DbCore: what a NativeDatabase shares with the database's callbacks: the answer queue, its eventfd, the sessions.
#pragma once

#include <Python.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <unordered_map>
#include <variant>
#include <vector>

#include "store/database/database.h"
#include "store/database/db_listener.h"

namespace slipstream::python {

inline base::Status closed_database() {
    return base::Status::cancelled("the database is closed");
}

inline base::Status closed_session() {
    return base::Status::cancelled("database session closed");
}

/// A COPY TO STDOUT's data and row count (copy_out).
struct CopyOutData {
    store::CopyCount count;
    std::string data;
};

/// A COPY's producer or consumer may go on (copy_stream_wait, copy_out_wait): the payload is None.
struct CopyWake {};

/// A listener's connection was lost or is back (store::ListenerEvent).
struct ListenerChange {
    store::ListenerEvent event;
    std::string why;
};

/// open_session / open_listener: the new id, or why not.
struct SessionOpened {
    base::Status status;
    std::uint64_t sid = 0;
};

// One answer on its way from the database's thread to drain().
struct DbCompletion {
    std::uint64_t token = 0;
    std::variant<store::QueryResult, store::JsonResult, store::CopyCount, SessionOpened, store::DbNotification,
                 CopyOutData, ListenerChange, CopyWake>
        value;
};

/// What the database's callbacks and the readiness check share with the NativeDatabase (they may outlive it).
struct DbCore {
    store::DatabaseConfig config;
    store::Backend backend = store::Backend::kPostgres;
    int fd = -1;
    pid_t pid = 0;  // the process that made `fd` (a forked worker makes its own: an eventfd is shared across fork)

    std::mutex queue_mutex;
    std::vector<DbCompletion> queue;
    bool notified = false;

    mutable std::mutex db_mutex;  // guards db, sessions, listeners, next_sid; never held across a database call
    std::shared_ptr<store::Database> db;
    std::unordered_map<std::uint64_t, std::shared_ptr<store::DbSession>> sessions;
    std::unordered_map<std::uint64_t, std::shared_ptr<store::DbListener>> listeners;
    std::uint64_t next_sid = 0;

    std::mutex cancel_mutex;  // guards cancels: the statements started under a token and not drained yet
    std::unordered_map<std::uint64_t, std::shared_ptr<store::QueryCancel>> cancels;

    DbCore() : fd(new_eventfd()), pid(::getpid()) {}
    ~DbCore() { ::close(fd); }

    static int new_eventfd() {
        int made = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (made < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
        return made;
    }
    // In a process forked after this core was made (a supervisor's worker), before the database opens there.
    void own_eventfd() {
        if (pid == ::getpid()) return;
        ::close(fd);
        fd = new_eventfd();
        pid = ::getpid();
        std::lock_guard<std::mutex> lock(queue_mutex);
        queue.clear();
        notified = false;
        std::lock_guard<std::mutex> cancel_lock(cancel_mutex);
        cancels.clear();
    }

    // Any thread, no GIL: one eventfd write per batch.
    void push(DbCompletion&& c) {
        bool wake = false;
        {
            std::lock_guard<std::mutex> lock(queue_mutex);
            queue.push_back(std::move(c));
            wake = !notified;
            notified = true;
        }
        if (wake) {
            std::uint64_t one = 1;
            (void)!::write(fd, &one, sizeof one);
        }
    }

    std::vector<DbCompletion> take() {
        std::uint64_t count = 0;
        (void)!::read(fd, &count, sizeof count);
        std::vector<DbCompletion> out;
        {
            std::lock_guard<std::mutex> lock(queue_mutex);
            notified = false;
            out.swap(queue);
        }
        // Answered: nothing left to cancel. (A call registers its handle before returning, with the GIL held, so
        // before the drain that sees its answer.)
        std::lock_guard<std::mutex> lock(cancel_mutex);
        for (const DbCompletion& c : out)
            cancels.erase(c.token);
        return out;
    }
    void track(std::uint64_t token, std::shared_ptr<store::QueryCancel> handle) {
        std::lock_guard<std::mutex> lock(cancel_mutex);
        cancels[token] = std::move(handle);
    }

    std::shared_ptr<store::Database> database() const {
        std::lock_guard<std::mutex> lock(db_mutex);
        return db;
    }
    std::shared_ptr<store::DbSession> session(std::uint64_t sid) const {
        std::lock_guard<std::mutex> lock(db_mutex);
        auto it = sessions.find(sid);
        return it == sessions.end() ? nullptr : it->second;
    }
    std::uint64_t add_session(std::unique_ptr<store::DbSession> session) {
        std::lock_guard<std::mutex> lock(db_mutex);
        std::uint64_t sid = ++next_sid;
        sessions.emplace(sid, std::shared_ptr<store::DbSession>(std::move(session)));
        return sid;
    }
    std::shared_ptr<store::DbListener> listener(std::uint64_t lid) const {
        std::lock_guard<std::mutex> lock(db_mutex);
        auto it = listeners.find(lid);
        return it == listeners.end() ? nullptr : it->second;
    }
    std::uint64_t add_listener(std::unique_ptr<store::DbListener> listener) {
        std::lock_guard<std::mutex> lock(db_mutex);
        std::uint64_t lid = ++next_sid;
        listeners.emplace(lid, std::shared_ptr<store::DbListener>(std::move(listener)));
        return lid;
    }
    bool ready() const {
        std::lock_guard<std::mutex> lock(db_mutex);
        return db != nullptr && db->ready();
    }

    // Callbacks that hand an answer to the queue (run on the database's thread; they hold the core, not `this`).
    static store::Database::QueryCallback to_queue(const std::shared_ptr<DbCore>& core, std::uint64_t token) {
        return [core, token](store::QueryResult r) { core->push(DbCompletion{token, std::move(r)}); };
    }
    static store::Database::JsonCallback json_to_queue(const std::shared_ptr<DbCore>& core, std::uint64_t token) {
        return [core, token](store::JsonResult r) { core->push(DbCompletion{token, std::move(r)}); };
    }
};

/// Every answer `core` queued since the last call, as a list of (token, ok, payload) (py_database.cpp's
/// conversions). The GIL held. New reference; nullptr with a Python error set on failure.
PyObject* drain_completions(DbCore& core);

}  // namespace slipstream::python
