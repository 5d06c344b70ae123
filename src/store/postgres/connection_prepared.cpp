// Connection: cached prepared statements that went stale on the server.
#include <libpq-fe.h>

#include <iterator>
#include <string>

#include "store/postgres/connection.h"
#include "store/postgres/connection_op.h"

namespace slipstream::store::postgres {
namespace {

// 26000: the server no longer knows the name (DISCARD ALL, a statement pooler in between). 0A000 with this message:
// a schema change altered the result type of a cached plan.
bool stale_statement_error(const DbError& error) {
    return error.sqlstate == "26000" ||
           (error.sqlstate == "0A000" &&
            error.message.find("cached plan must not change result type") != std::string::npos);
}

}  // namespace

void Connection::forget_prepared(const std::string& statement) {
    for (auto it = prepared_.begin(); it != prepared_.end();) {
        it = it->second == statement ? prepared_.erase(it) : std::next(it);
    }
}

// A statement that ran a stale cached statement: the name is forgotten (the next use prepares afresh) and, outside
// a transaction and pipeline, the statement is prepared and run once more in its place at the head of the queue
// (the failed run changed nothing: its implicit transaction was rolled back). Inside a transaction the server has
// aborted it, so the caller hears the error. True when it was queued again.
bool Connection::retry_stale_statement(Op& op) {
    if (op.status.is_ok() || op.answered || op.statement.empty() || !op.cache_key.empty() ||
        !stale_statement_error(op.error)) {
        return false;
    }
    forget_prepared(op.statement);
    if (options_.pipeline || op.reprepared || PQtransactionStatus(conn_) != PQTRANS_IDLE) return false;
    op.reprepared = true;
    op.phase = Op::Phase::kQueued;
    op.statement.clear();
    op.status = base::Status();
    op.error = DbError();
    op.rows = ResultSet();
    op.json.clear();
    --in_flight_;
    arm_timer();
    pump();
    return true;
}

}  // namespace slipstream::store::postgres
