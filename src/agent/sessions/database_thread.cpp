// mark_database_thread(), on_database_thread(): one thread_local flag.
#include "agent/sessions/database_thread.h"

namespace slipstream::agent::sessions {

namespace {
thread_local bool tls_database_thread = false;
thread_local int tls_closing = 0;
}  // namespace

ClosingOnThisThread::ClosingOnThisThread() {
    ++tls_closing;
}
ClosingOnThisThread::~ClosingOnThisThread() {
    --tls_closing;
}
bool ClosingOnThisThread::active() {
    return tls_closing > 0;
}

void mark_database_thread() {
    tls_database_thread = true;
}

bool on_database_thread() {
    return tls_database_thread;
}

}  // namespace slipstream::agent::sessions
