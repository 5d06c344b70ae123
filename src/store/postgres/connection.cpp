// Connection: connect polling, the statement queue (one at a time or pipelined), results (COPY: connection_copy.cpp;
// cancelling and deadlines: connection_cancel.cpp).
#include "store/postgres/connection.h"

#include <sys/epoll.h>

#include <algorithm>
#include <charconv>
#include <mutex>

#include "base/log.h"
#include "store/postgres/connection_op.h"
#include "store/postgres/pg_params.h"
#include "store/postgres/pg_result.h"

namespace slipstream::store::postgres {

namespace {

void receive_notice(void*, const PGresult* result) {
    // Notices (NOTICE, WARNING) go to the log at debug level: a library never prints.
    if (base::log_enabled(base::LogLevel::kDebug)) {
        base::log_message(base::LogLevel::kDebug, std::string("postgres: ") + PQresultErrorMessage(result));
    }
}

}  // namespace

Connection::Connection(net::EventLoop& loop, ConnectOptions options)
    : loop_(loop), options_(options), cancel_link_(std::make_shared<CancelLink>()) {
    cancel_link_->loop = &loop;
    timer_.set_callback([this] { on_timer(); });
}
std::unique_ptr<Connection> Connection::connect(net::EventLoop& loop, const std::string& conninfo,
                                                ConnectOptions options, ConnectCallback done) {
    std::unique_ptr<Connection> c(new Connection(loop, options));
    c->connect_done_ = std::move(done);
    c->conn_ = PQconnectStart(conninfo.c_str());
    base::Status failed;
    if (c->conn_ == nullptr) {
        failed = base::Status::resource_exhausted("PQconnectStart: out of memory");
    } else if (PQstatus(c->conn_) == CONNECTION_BAD) {
        failed = base::Status::unavailable(connection_message(c->conn_));
    } else {
        PQsetNoticeReceiver(c->conn_, receive_notice, nullptr);
        // Until PQconnectPoll has been called, behave as if it had said PGRES_POLLING_WRITING.
        c->fd_ = PQsocket(c->conn_);
        base::Status added = loop.add(c->fd_, EPOLLOUT, c.get());
        if (added.is_ok()) {
            c->events_ = EPOLLOUT;
            if (options.timeout_ns > 0) loop.schedule_after(c->timer_, options.timeout_ns);
            return c;
        }
        c->fd_ = -1;
        failed = added;
    }
    // Never call back from inside connect(): the caller may not hold the pointer yet.
    loop.post([alive = std::weak_ptr<bool>(c->alive_), raw = c.get(), failed]() mutable {
        if (!alive.expired()) raw->finish_connect(std::move(failed));
    });
    return c;
}
Connection::~Connection() {
    {
        std::lock_guard<std::mutex> lock(cancel_link_->mutex);
        cancel_link_->loop = nullptr;
    }
    alive_.reset();
    timer_.cancel();
    if (fd_ >= 0) loop_.remove(fd_).ignore_error();
    auto ops = std::move(ops_);
    if (conn_ != nullptr) PQfinish(conn_);
    for (auto& op : ops)
        deliver(*op, base::Status::cancelled("connection closed"), {});
}
bool Connection::in_transaction() const {
    if (conn_ == nullptr) return false;
    PGTransactionStatusType t = PQtransactionStatus(conn_);
    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR;
}
int Connection::backend_pid() const {
    return conn_ == nullptr ? 0 : PQbackendPID(conn_);
}
void Connection::set_events(std::uint32_t events) {
    if (fd_ < 0 || events == events_) return;
    if (!loop_.modify(fd_, events).is_ok()) {
        // libpq may have replaced the socket (another host of the list): register the new one.
        loop_.remove(fd_).ignore_error();
        if (!loop_.add(fd_, events, this).is_ok()) {
            break_connection("cannot register the connection's socket", true);
            return;
        }
    }
    events_ = events;
}
void Connection::on_io(std::uint32_t events) {
    if (state_ == State::kConnecting) {
        continue_connect();
        return;
    }
    if (state_ == State::kBroken) return;
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) {
        if (PQconsumeInput(conn_) == 0) {
            break_connection(connection_message(conn_), true);
            return;
        }
    }
    if ((events_ & EPOLLOUT) != 0) {
        flush();
        if (state_ == State::kBroken) return;
    }
    std::weak_ptr<bool> alive = alive_;
    read_results();
    // libpq parses notifications while it parses results: hand them over after every read.
    if (!alive.expired() && state_ == State::kReady) deliver_notifications();
}
void Connection::continue_connect() {
    PostgresPollingStatusType poll = PQconnectPoll(conn_);
    int fd = PQsocket(conn_);
    if (fd != fd_) {
        if (fd_ >= 0) loop_.remove(fd_).ignore_error();
        fd_ = fd;
        events_ = 0;
        if (fd_ >= 0 && !loop_.add(fd_, EPOLLOUT, this).is_ok()) {
            fd_ = -1;
        } else {
            events_ = EPOLLOUT;
        }
    }
    switch (poll) {
        case PGRES_POLLING_READING:
            set_events(EPOLLIN);
            return;
        case PGRES_POLLING_WRITING:
            set_events(EPOLLOUT);
            return;
        case PGRES_POLLING_OK:
            finish_connect(base::Status::ok());
            return;
        default:
            finish_connect(base::Status::unavailable(connection_message(conn_)));
            return;
    }
}
void Connection::finish_connect(base::Status status) {
    timer_.cancel();
    std::weak_ptr<bool> alive = alive_;
    ConnectCallback done = std::move(connect_done_);
    connect_done_ = nullptr;
    if (status.is_ok()) {
        PQsetnonblocking(conn_, 1);
        if (options_.pipeline && PQenterPipelineMode(conn_) == 0) {
            status = base::Status::unavailable("cannot enter pipeline mode: " + connection_message(conn_));
        }
    }
    if (status.is_ok()) {
        state_ = State::kReady;
        set_events(EPOLLIN);
    } else {
        break_connection(status.message(), false);  // answers statements queued meanwhile
        if (alive.expired()) return;
    }
    if (done) done(*this, status);
    if (alive.expired()) return;
    if (state_ == State::kReady) pump();
}
Connection::StatementId Connection::query(std::string sql, Params params, QueryCallback done, QueryOptions options) {
    auto op = std::make_unique<Op>(std::move(sql), params, options);
    op->on_rows = std::move(done);
    return enqueue_statement(std::move(op));
}
Connection::StatementId Connection::fetch_json(std::string sql, Params params, JsonCallback done,
                                               QueryOptions options) {
    auto op = std::make_unique<Op>(std::move(sql), params, options);
    op->on_json = std::move(done);
    return enqueue_statement(std::move(op));
}
// query() and fetch_json(): COPY FROM STDIN / TO STDOUT is refused before it reaches the server (read_results
// still ends one that slips past the lexical check).
Connection::StatementId Connection::enqueue_statement(std::unique_ptr<Op> op) {
    switch (copy_direction(op->sql)) {
        case CopyDirection::kIn:
            return refuse(std::move(op), kCopyInRefused);
        case CopyDirection::kOut:
            return refuse(std::move(op), kCopyOutRefused);
        case CopyDirection::kNone:
            break;
    }
    return enqueue(std::move(op));
}
// Answers `op` with kInvalidArgument in its place in the queue, so answers keep the order of the calls.
Connection::StatementId Connection::refuse(std::unique_ptr<Op> op, std::string message) {
    op->refused = true;
    op->error.message = std::move(message);
    op->status = base::Status::invalid_argument(op->error.message);
    if (!ops_.empty() && state_ != State::kBroken) return enqueue(std::move(op));
    // Nothing before it: answered from the loop, not from inside this call (later calls answer later still).
    op->id = ++next_id_;
    const StatementId id = op->id;
    loop_.post([op = std::move(op)]() mutable { deliver(*op, op->status, std::move(op->error)); });
    return id;
}
void Connection::on_savepoint(std::string_view command, std::string_view name, QueryCallback done) {
    std::string sql(command);
    if (name.find('\0') != std::string_view::npos || name.empty()) {
        auto op = std::make_unique<Op>(std::string(), Params{}, QueryOptions{});
        op->on_rows = std::move(done);
        refuse(std::move(op), "a savepoint name must be non-empty text without NUL bytes");
        return;
    }
    sql.push_back('"');
    for (char c : name) {
        if (c == '"') sql.push_back('"');  // identifiers double their quotes
        sql.push_back(c);
    }
    sql.push_back('"');
    query(std::move(sql), {}, std::move(done));
}
Connection::StatementId Connection::enqueue(std::unique_ptr<Op> op) {
    op->id = ++next_id_;
    const StatementId id = op->id;
    if (state_ == State::kBroken) {
        // Answered from the loop, not from inside the caller's call.
        loop_.post([op = std::move(op)]() mutable {
            DbError e;
            e.message = "connection is broken";
            e.connection_lost = true;
            deliver(*op, base::Status::unavailable(e.message), e);
        });
        return id;
    }
    ops_.push_back(std::move(op));
    if (state_ == State::kReady) pump();
    return id;
}
// Sends what may go on the wire now: the next statement when none is in flight, or (pipeline) every queued one.
void Connection::pump() {
    std::weak_ptr<bool> alive = alive_;
    bool sent_any = false;
    // While a cancel request is on its way nothing new is sent: it could stop the new statement instead.
    while (state_ == State::kReady && cancels_running_ == 0 && in_flight_ < ops_.size() &&
           (options_.pipeline || in_flight_ == 0)) {
        Op& op = *ops_[in_flight_];
        if (op.refused) {
            if (in_flight_ > 0) break;  // answered once everything before it has been
            std::unique_ptr<Op> refused = std::move(ops_.front());
            ops_.pop_front();
            deliver(*refused, refused->status, std::move(refused->error));
            if (alive.expired()) return;
            if (ops_.empty() && listener_) listener_(*this);
            if (alive.expired()) return;
            continue;
        }
        if (send(op)) {
            ++in_flight_;
            sent_any = true;
            continue;
        }
        if (state_ == State::kBroken) return;  // break_connection answered everyone
        // Refused before anything was sent (bad parameters, libpq busy): answer it and go on.
        std::unique_ptr<Op> refused = std::move(ops_[in_flight_]);
        ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(in_flight_));
        DbError e;
        e.message = connection_message(conn_);
        deliver(*refused, base::Status::invalid_argument(e.message), e);
        if (alive.expired()) return;
    }
    if (sent_any) {
        arm_timer();
        flush();
    }
}
// Puts `op` on the wire (its Prepare first when it is to be cached; in pipeline mode both, then a sync point).
// False when libpq refused it.
bool Connection::send(Op& op) {
    const int n = op.params.count();
    if (op.options.prepare) {
        std::string key = op.sql;
        key.push_back('\0');
        key += op.params.type_signature();
        auto it = prepared_.find(key);
        if (it != prepared_.end()) {
            op.statement = it->second;
        } else if (prepared_.size() < options_.max_prepared) {
            op.statement = "ss_" + std::to_string(++statement_counter_);
            op.cache_key = key;
            // In a pipeline the statements behind this one are sent before its Prepare is answered: they use the
            // name at once (and fail with it, in their own segments, if the Prepare fails and is forgotten).
            if (options_.pipeline) prepared_.emplace(std::move(key), op.statement);
        }
    }
    int sent = 0;
    if (!op.cache_key.empty()) {
        op.phase = Op::Phase::kPreparing;
        sent = PQsendPrepare(conn_, op.statement.c_str(), op.sql.c_str(), n, op.params.types());
        if (sent != 0 && options_.pipeline) {
            sent = PQsendQueryPrepared(conn_, op.statement.c_str(), n, op.params.values(), op.params.lengths(),
                                       op.params.formats(), 0);
        }
    } else if (!op.statement.empty()) {
        op.phase = Op::Phase::kExecuting;
        sent = PQsendQueryPrepared(conn_, op.statement.c_str(), n, op.params.values(), op.params.lengths(),
                                   op.params.formats(), 0);
    } else {
        op.phase = Op::Phase::kExecuting;
        sent = PQsendQueryParams(conn_, op.sql.c_str(), n, op.params.types(), op.params.values(), op.params.lengths(),
                                 op.params.formats(), 0);
    }
    if (sent != 0 && options_.pipeline) sent = PQpipelineSync(conn_);
    if (sent == 0) {
        // A refusal after part of a pipeline entry went out leaves the stream unknowable: close it.
        if (PQstatus(conn_) == CONNECTION_BAD || (options_.pipeline && op.phase != Op::Phase::kQueued)) {
            break_connection(connection_message(conn_), true);
        }
        op.phase = Op::Phase::kQueued;
        return false;
    }
    if (op.options.timeout_ns > 0) op.deadline = loop_.now() + op.options.timeout_ns;
    return true;
}
// The timer watches the oldest statement in flight: its deadline, or its cancel grace once it timed out; with
// nothing in flight, the cancel requests still running.
void Connection::arm_timer() {
    if (in_flight_ == 0 && cancels_running_ > 0) {
        loop_.timers().schedule(timer_, cancel_deadline_);
        return;
    }
    if (in_flight_ == 0 || ops_.front()->deadline == 0) {
        timer_.cancel();
        return;
    }
    loop_.timers().schedule(timer_, ops_.front()->deadline);
}
void Connection::flush() {
    int r = PQflush(conn_);
    if (r < 0) {
        break_connection(connection_message(conn_), true);
        return;
    }
    // 1: libpq holds output the socket did not take; wait until it is writable (and keep reading meanwhile).
    set_events(r == 1 ? EPOLLIN | EPOLLOUT : EPOLLIN);
}
void Connection::read_results() {
    std::weak_ptr<bool> alive = alive_;
    bool null_seen = false;
    while (state_ == State::kReady) {
        // While COPY data flows, PQgetResult would only repeat the COPY result: move the data instead.
        if (in_flight_ > 0 && ops_.front()->phase == Op::Phase::kCopyIn) {
            if (!feed_copy_in(*ops_.front())) return;
            continue;
        }
        if (in_flight_ > 0 && ops_.front()->phase == Op::Phase::kCopyOut) {
            if (!drain_copy_out(*ops_.front())) return;
            continue;
        }
        if (PQisBusy(conn_) != 0) return;
        PGresult* res = PQgetResult(conn_);
        if (res != nullptr) null_seen = false;
        if (in_flight_ == 0) {
            if (res == nullptr) return;
            PQclear(res);  // nothing asked for it
            continue;
        }
        Op& op = *ops_.front();
        if (res == nullptr) {
            // The end of one command's results.
            if (op.phase == Op::Phase::kPreparing && !op.status.is_ok() && options_.pipeline) {
                prepared_.erase(op.cache_key);  // the failed Prepare's name does not exist on the server
                op.cache_key.clear();
                op.phase = Op::Phase::kExecuting;
                continue;
            }
            if (op.phase == Op::Phase::kPreparing && op.status.is_ok()) {
                op.phase = Op::Phase::kExecuting;
                if (options_.pipeline) continue;  // cached at send; the execute was sent with it
                prepared_.emplace(std::move(op.cache_key), op.statement);
                op.cache_key.clear();
                if (op.answered) {  // timed out or cancelled while preparing: nothing to execute
                    complete_current();
                    if (alive.expired()) return;
                    continue;
                }
                // Prepared: execute it (the second round trip, first use only).
                if (PQsendQueryPrepared(conn_, op.statement.c_str(), op.params.count(), op.params.values(),
                                        op.params.lengths(), op.params.formats(), 0) == 0) {
                    break_connection(connection_message(conn_), true);
                    return;
                }
                flush();
                continue;
            }
            if (options_.pipeline) {
                // In a pipeline the statement ends at its sync point (PGRES_PIPELINE_SYNC), not here. A second null
                // in a row means nothing more has arrived yet: wait for input.
                if (null_seen) return;
                null_seen = true;
                continue;
            }
            complete_current();
            if (alive.expired()) return;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        switch (st) {
            case PGRES_TUPLES_OK:
            case PGRES_COMMAND_OK:
            case PGRES_EMPTY_QUERY:
                if (op.phase == Op::Phase::kExecuting && op.status.is_ok() && !op.answered) {
                    if (op.on_copy) {
                        if (op.copy_seen) {
                            const char* tuples = PQcmdTuples(res);
                            std::from_chars(tuples, tuples + std::char_traits<char>::length(tuples), op.copied);
                        } else {
                            op.error.message = std::string("not a COPY statement: it ran as ") + PQcmdStatus(res);
                            op.status = base::Status::invalid_argument(op.error.message);
                        }
                    } else if (op.on_json) {
                        op.json.clear();
                        op.status = append_rows_json(res, op.json);
                    } else {
                        op.rows = to_result_set(res);
                    }
                }
                break;
            case PGRES_PIPELINE_SYNC:
                PQclear(res);
                complete_current();
                if (alive.expired()) return;
                continue;
            case PGRES_PIPELINE_ABORTED:
                if (op.status.is_ok()) {
                    op.error.message = "not run: an earlier command of its pipeline segment failed";
                    op.status = base::Status::cancelled(op.error.message);
                }
                break;
            case PGRES_COPY_IN:
            case PGRES_COPY_OUT:
                PQclear(res);
                if (!start_copy(op, st == PGRES_COPY_IN)) return;
                continue;
            case PGRES_COPY_BOTH:
                PQclear(res);
                break_connection("COPY BOTH (replication) is not supported by this client", true);
                return;
            default:
                if (op.status.is_ok()) {
                    op.error = to_db_error(res);
                    op.status = op.error.sqlstate.empty() ? base::Status::unavailable(op.error.message)
                                                          : status_for_error(op.error);
                }
                break;
        }
        PQclear(res);
        if (PQstatus(conn_) == CONNECTION_BAD) {
            break_connection(connection_message(conn_), true);
            return;
        }
    }
}
void Connection::complete_current() {
    if (retry_stale_statement(*ops_.front())) return;
    std::unique_ptr<Op> op = std::move(ops_.front());
    ops_.pop_front();
    --in_flight_;
    if (in_flight_ > 0 && ops_.front()->cancel_pending) {
        // Pipeline: a statement cancelled behind this one is the oldest now, so the one the server runs.
        ops_.front()->cancel_pending = false;
        cancel_on_server(*ops_.front(), "statement cancelled by the client");
    }
    arm_timer();
    std::weak_ptr<bool> alive = alive_;
    deliver(*op, op->status, std::move(op->error));
    if (alive.expired()) return;
    if (!ops_.empty()) {
        pump();
    } else if (listener_) {
        listener_(*this);
    }
}
void Connection::deliver(Op& op, base::Status status, DbError error) {
    if (op.answered) return;
    op.answered = true;
    if (op.on_json) {
        JsonCallback cb = std::move(op.on_json);
        if (status.is_ok()) {
            cb(JsonResult(std::move(op.json)));
        } else {
            cb(JsonResult(std::move(status), std::move(error)));
        }
    } else if (op.on_copy) {
        CopyCallback cb = std::move(op.on_copy);
        if (status.is_ok()) {
            cb(CopyResult(op.copied));
        } else {
            cb(CopyResult(std::move(status), std::move(error)));
        }
    } else if (op.on_rows) {
        QueryCallback cb = std::move(op.on_rows);
        if (status.is_ok()) {
            cb(QueryResult(std::move(op.rows)));
        } else {
            cb(QueryResult(std::move(status), std::move(error)));
        }
    }
}
// Hands every notification libpq has parsed to the handler. False when the handler destroyed the connection.
bool Connection::deliver_notifications() {
    std::weak_ptr<bool> alive = alive_;
    while (PGnotify* n = PQnotifies(conn_)) {
        Notification note{n->relname, n->extra != nullptr ? n->extra : "", n->be_pid};
        PQfreemem(n);
        if (!on_notify_) continue;
        on_notify_(note);
        if (alive.expired() || state_ != State::kReady) return false;
    }
    return true;
}
bool Connection::check_health() {
    if (state_ != State::kReady) return false;
    if (!ops_.empty()) return true;
    if (PQconsumeInput(conn_) == 0 || PQstatus(conn_) == CONNECTION_BAD) {
        break_connection(connection_message(conn_), false);
        return false;
    }
    return true;
}
void Connection::break_connection(std::string reason, bool notify) {
    if (state_ == State::kBroken) return;
    state_ = State::kBroken;
    timer_.cancel();
    if (fd_ >= 0) {
        loop_.remove(fd_).ignore_error();  // libpq may have closed it already (EOF): epoll forgot it then
        fd_ = -1;
    }
    std::weak_ptr<bool> alive = alive_;
    if (connect_done_) {
        ConnectCallback done = std::move(connect_done_);
        done(*this, base::Status::unavailable(reason));
        if (alive.expired()) return;
    }
    auto ops = std::move(ops_);
    ops_.clear();
    in_flight_ = 0;
    DbError e;
    e.message = reason.empty() ? std::string("connection lost") : reason;
    e.connection_lost = true;
    for (auto& op : ops) {
        if (op->status.is_ok()) {
            deliver(*op, base::Status::unavailable(e.message), e);
        } else {
            // The server said why before it went (57P01 terminated by an administrator, ...): keep its words.
            op->error.connection_lost = true;
            deliver(*op, op->status, std::move(op->error));
        }
        if (alive.expired()) return;
    }
    if (notify && listener_) listener_(*this);
}

}  // namespace slipstream::store::postgres
