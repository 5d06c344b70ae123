// Which threads run database callbacks: the last reference to a Database must never be dropped on one.
#pragma once

namespace slipstream::agent::sessions {

/// Remembers that this thread runs the database's callbacks (its loop, a SQLite worker). Called at the top of
/// every callback this folder hands to the database.
void mark_database_thread();
/// Whether mark_database_thread() ran on this thread: store::Database's destructor joins those threads, so a
/// last reference dropped here must be handed to another thread.
bool on_database_thread();

/// While one lives, this thread is an owner closing the store: a held connection may be destroyed here.
class ClosingOnThisThread {
  public:
    ClosingOnThisThread();
    ~ClosingOnThisThread();
    ClosingOnThisThread(const ClosingOnThisThread&) = delete;
    ClosingOnThisThread& operator=(const ClosingOnThisThread&) = delete;
    static bool active();
};

}  // namespace slipstream::agent::sessions
