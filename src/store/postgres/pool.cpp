// Pool: checkout, waiters with deadlines, release (rollback, draining), replacement of broken connections.
#include "store/postgres/pool.h"

#include <algorithm>
#include <iterator>

namespace slipstream::store::postgres {

Lease& Lease::operator=(Lease&& other) noexcept {
    if (this != &other) {
        reset();
        pool_ = other.pool_;
        conn_ = other.detach();
    }
    return *this;
}

void Lease::reset() {
    if (conn_ != nullptr) pool_->release(detach());
}

void StatementCancel::cancel() {
    if (requested_) return;
    requested_ = true;
    std::function<void()> stop = std::move(stop_);
    stop_ = nullptr;
    if (stop) stop();
}

Pool::Pool(net::EventLoop& loop, PoolOptions options, WorkerPool* cancel_workers)
    : loop_(loop), options_(std::move(options)), cancel_workers_(cancel_workers) {
    options_.max_size = std::max<std::size_t>(options_.max_size, 1);
    options_.min_size = std::min(options_.min_size, options_.max_size);
    for (std::size_t i = 0; i < options_.min_size; ++i)
        open_one();
    std::int64_t period = 0;
    for (std::int64_t limit : {options_.idle_timeout_ns, options_.max_lifetime_ns}) {
        if (limit > 0) period = period == 0 ? limit : std::min(period, limit);
    }
    if (period > 0) {
        // Checked at half the shortest limit, within [4 ms, 30 s]: a connection outlives its limit by at most that.
        period = std::clamp<std::int64_t>(period / 2, 4'000'000, 30'000'000'000);
        reaper_.set_callback([this, period] {
            reap();
            loop_.schedule_after(reaper_, period);
        });
        loop_.schedule_after(reaper_, period);
    }
}

Pool::~Pool() {
    closing_ = true;
    std::list<Waiter> waiters;
    waiters.swap(waiters_);
    for (Waiter& w : waiters) {
        w.timer.cancel();
        if (w.done) w.done(base::Status::cancelled("connection pool closed"));
    }
    slots_.clear();  // statements still queued on a connection hear kCancelled
}

Pool::Slot* Pool::find(const Connection* conn) {
    for (auto& s : slots_) {
        if (s->conn.get() == conn) return s.get();
    }
    return nullptr;
}

void Pool::open_one() {
    slots_.push_back(std::make_unique<Slot>(Slot{nullptr, SlotState::kConnecting, loop_.now(), 0}));
    Slot& slot = *slots_.back();
    ConnectOptions connect{.timeout_ns = options_.connect_timeout_ns,
                           .pipeline = options_.pipeline,
                           .cancel_workers = cancel_workers_,
                           .max_prepared = options_.max_prepared};
    slot.conn = Connection::connect(loop_, options_.conninfo, connect,
                                    [this](Connection& c, base::Status status) { on_connected(c, std::move(status)); });
    slot.conn->set_listener([this](Connection& c) { on_connection_event(c); });
}

// One connection attempt per waiter not covered yet, within max_size.
void Pool::grow() {
    std::size_t connecting = 0;
    for (auto& s : slots_)
        connecting += s->state == SlotState::kConnecting ? 1 : 0;
    while (connecting < waiters_.size() && slots_.size() < options_.max_size) {
        open_one();
        ++connecting;
    }
}

void Pool::on_connected(Connection& conn, base::Status status) {
    if (closing_) return;
    Slot* slot = find(&conn);
    if (slot == nullptr) return;
    if (status.is_ok()) {
        hand_out(*slot);
        return;
    }
    drop(&conn);
    if (!waiters_.empty()) {
        AcquireCallback done = std::move(waiters_.front().done);
        waiters_.pop_front();
        done(base::Status::unavailable("cannot connect to the database: " + status.message()));
    }
}

void Pool::hand_out(Slot& slot) {
    if (waiters_.empty()) {
        if (past_lifetime(slot)) {
            ++retired_;
            drop(slot.conn.get());
            if (slots_.size() < options_.min_size) open_one();
            return;
        }
        slot.state = SlotState::kIdle;
        slot.idle_since = loop_.now();
        return;
    }
    AcquireCallback done = std::move(waiters_.front().done);
    waiters_.pop_front();
    slot.state = SlotState::kLeased;
    done(Lease(this, slot.conn.get()));
}

void Pool::acquire(AcquireCallback done) {
    acquire_or_wait(std::move(done));
}

std::uint64_t Pool::acquire_or_wait(AcquireCallback done) {
    if (closing_) {
        done(base::Status::cancelled("connection pool closed"));
        return 0;
    }
    for (;;) {
        auto it = std::find_if(slots_.begin(), slots_.end(), [](auto& s) { return s->state == SlotState::kIdle; });
        if (it == slots_.end()) break;
        Slot& slot = **it;
        slot.state = SlotState::kLeased;  // check_health() may break it; then it is dropped here
        if (past_lifetime(slot)) {
            ++retired_;
            drop(slot.conn.get());
            continue;
        }
        if (slot.conn->check_health()) {
            done(Lease(this, slot.conn.get()));
            return 0;
        }
        ++dropped_;
        drop(slot.conn.get());
    }
    waiters_.emplace_back();
    auto it = std::prev(waiters_.end());
    it->done = std::move(done);
    it->id = ++last_waiter_;
    const std::uint64_t waiter = it->id;
    it->timer.set_callback([this, it] {
        Pool* self = this;
        AcquireCallback expired = std::move(it->done);
        self->waiters_.erase(it);  // destroys this timer and its callback: nothing captured is used after
        expired(base::Status::timeout("no database connection became free within " +
                                      std::to_string(self->options_.acquire_timeout_ns / 1'000'000) + " ms"));
    });
    loop_.schedule_after(it->timer, options_.acquire_timeout_ns);
    grow();
    return waiter;
}

void Pool::acquire_for(const CancelPtr& handle, AcquireCallback done) {
    // A waiter was queued (its callback cannot have run yet: connection attempts answer from the loop).
    if (std::uint64_t waiter = acquire_or_wait(std::move(done)); waiter != 0)
        handle->stop_ = [this, waiter] { cancel_wait(waiter); };
}

void Pool::cancel_wait(std::uint64_t waiter) {
    if (closing_) return;  // the destructor answers every waiter
    auto it = std::find_if(waiters_.begin(), waiters_.end(), [waiter](const Waiter& w) { return w.id == waiter; });
    if (it == waiters_.end()) return;
    AcquireCallback done = std::move(it->done);
    waiters_.erase(it);
    done(base::Status::cancelled("statement cancelled by the client while waiting for a database connection"));
}

void Pool::release(Connection* conn) {
    if (closing_) return;
    Slot* slot = find(conn);
    if (slot == nullptr) return;
    if (conn->is_broken()) {
        ++dropped_;
        drop(conn);
        grow();
        return;
    }
    if (conn->pending() > 0) {
        slot->state = SlotState::kDraining;  // a timed-out statement is still ending; the listener brings it back
        return;
    }
    if (conn->in_transaction()) {
        slot->state = SlotState::kDraining;
        conn->rollback([](QueryResult) {});  // a failed rollback breaks the connection: then it is dropped
        return;
    }
    hand_out(*slot);
}

void Pool::on_connection_event(Connection& conn) {
    if (closing_) return;
    Slot* slot = find(&conn);
    if (slot == nullptr || slot->state == SlotState::kLeased || slot->state == SlotState::kConnecting) return;
    if (conn.is_broken()) {
        ++dropped_;
        drop(&conn);
        grow();
        return;
    }
    if (slot->state == SlotState::kDraining && conn.is_idle()) release(&conn);
}

void Pool::drop(Connection* conn, bool now) {
    auto it = std::find_if(slots_.begin(), slots_.end(), [conn](auto& s) { return s->conn.get() == conn; });
    if (it == slots_.end()) return;
    std::unique_ptr<Connection> owned = std::move((*it)->conn);
    slots_.erase(it);
    owned->set_listener(nullptr);
    if (!now) loop_.defer([owned = std::move(owned)] {});
}

bool Pool::past_lifetime(const Slot& slot) const {
    return options_.max_lifetime_ns > 0 && loop_.now() - slot.created >= options_.max_lifetime_ns;
}

// Closes idle connections past their lifetime, and those beyond min_size unused for idle_timeout_ns; opens
// replacements up to min_size.
void Pool::reap() {
    const base::MonoNanos now = loop_.now();
    for (std::size_t i = 0; i < slots_.size();) {
        Slot& slot = *slots_[i];
        bool idle_too_long = options_.idle_timeout_ns > 0 && now - slot.idle_since >= options_.idle_timeout_ns &&
                             slots_.size() > options_.min_size;
        if (slot.state == SlotState::kIdle && (past_lifetime(slot) || idle_too_long)) {
            ++retired_;
            drop(slot.conn.get(), /*now=*/true);  // not inside any of its callbacks: close it at once
            continue;
        }
        ++i;
    }
    while (slots_.size() < options_.min_size)
        open_one();
}

std::shared_ptr<StatementCancel> Pool::query(std::string sql, Params params, Connection::QueryCallback done,
                                             QueryOptions options) {
    auto handle = std::make_shared<StatementCancel>();
    run_with_retry(std::move(sql), std::move(params), std::move(done), options, false, handle);
    return handle;
}

std::shared_ptr<StatementCancel> Pool::fetch_json(std::string sql, Params params, Connection::JsonCallback done,
                                                  QueryOptions options) {
    auto handle = std::make_shared<StatementCancel>();
    json_with_retry(std::move(sql), std::move(params), std::move(done), options, false, handle);
    return handle;
}

// The handle holds the pool and connection only through stop_, which every answer clears; so does the
// connection's destruction (it answers what it holds), so stop_ never sees a dangling connection.
void Pool::run_with_retry(std::string sql, Params params, Connection::QueryCallback done, QueryOptions options,
                          bool retried, CancelPtr handle) {
    acquire_for(handle, [this, sql, params, done, options, retried, handle](base::Result<Lease> lease) mutable {
        handle->stop_ = nullptr;
        if (!lease.is_ok()) {
            done(QueryResult(lease.status()));
            return;
        }
        Connection* conn = lease.value().detach();
        const std::uint64_t answers = handle->answers_;
        const Connection::StatementId id = conn->query(
            sql, params,
            [this, conn, sql, params, done, options, retried, handle](QueryResult r) mutable {
                handle->stop_ = nullptr;
                ++handle->answers_;
                release(conn);
                if (!r.is_ok() && r.error().connection_lost && options.idempotent && !retried && !handle->requested()) {
                    run_with_retry(std::move(sql), std::move(params), std::move(done), options, true, handle);
                    return;
                }
                done(std::move(r));
            },
            options);
        if (handle->answers_ == answers) handle->stop_ = [conn, id] { conn->cancel(id); };
    });
}

void Pool::json_with_retry(std::string sql, Params params, Connection::JsonCallback done, QueryOptions options,
                           bool retried, CancelPtr handle) {
    acquire_for(handle, [this, sql, params, done, options, retried, handle](base::Result<Lease> lease) mutable {
        handle->stop_ = nullptr;
        if (!lease.is_ok()) {
            done(JsonResult(lease.status()));
            return;
        }
        Connection* conn = lease.value().detach();
        const std::uint64_t answers = handle->answers_;
        const Connection::StatementId id = conn->fetch_json(
            sql, params,
            [this, conn, sql, params, done, options, retried, handle](JsonResult r) mutable {
                handle->stop_ = nullptr;
                ++handle->answers_;
                release(conn);
                if (!r.is_ok() && r.error().connection_lost && options.idempotent && !retried && !handle->requested()) {
                    json_with_retry(std::move(sql), std::move(params), std::move(done), options, true, handle);
                    return;
                }
                done(std::move(r));
            },
            options);
        if (handle->answers_ == answers) handle->stop_ = [conn, id] { conn->cancel(id); };
    });
}

template <typename Stream>
std::shared_ptr<StatementCancel> Pool::copy(std::string copy_sql, Stream stream, CopyCallback done,
                                            QueryOptions options,
                                            Connection::StatementId (Connection::*start)(std::string, Stream,
                                                                                         CopyCallback, QueryOptions)) {
    auto handle = std::make_shared<StatementCancel>();
    acquire_for(handle, [this, sql = std::move(copy_sql), stream = std::move(stream), done = std::move(done), options,
                         handle, start](base::Result<Lease> lease) mutable {
        handle->stop_ = nullptr;
        if (!lease.is_ok()) {
            done(CopyResult(lease.status()));
            return;
        }
        Connection* conn = lease.value().detach();
        const std::uint64_t answers = handle->answers_;
        const Connection::StatementId id = (conn->*start)(
            std::move(sql), std::move(stream),
            [this, conn, done = std::move(done), handle](CopyResult r) mutable {
                handle->stop_ = nullptr;
                handle->resume_ = nullptr;
                ++handle->answers_;
                release(conn);
                done(std::move(r));
            },
            options);
        if (handle->answers_ == answers) {
            handle->stop_ = [conn, id] { conn->cancel(id); };
            handle->resume_ = [conn, id] { conn->resume_copy(id); };
        }
    });
    return handle;
}

std::shared_ptr<StatementCancel> Pool::copy_in(std::string copy_sql, CopySource source, CopyCallback done,
                                               QueryOptions options) {
    return copy(std::move(copy_sql), std::move(source), std::move(done), options, &Connection::copy_in);
}

std::shared_ptr<StatementCancel> Pool::copy_out(std::string copy_sql, CopySink sink, CopyCallback done,
                                                QueryOptions options) {
    return copy(std::move(copy_sql), std::move(sink), std::move(done), options, &Connection::copy_out);
}

Pool::Stats Pool::stats() const {
    Stats s;
    s.open = slots_.size();
    for (const auto& slot : slots_) {
        s.idle += slot->state == SlotState::kIdle ? 1 : 0;
        s.connecting += slot->state == SlotState::kConnecting ? 1 : 0;
    }
    s.waiting = waiters_.size();
    s.dropped = dropped_;
    s.retired = retired_;
    return s;
}

}  // namespace slipstream::store::postgres
