// ListenerImpl: LISTEN on a connection of its own; a lost connection is re-opened with backoff and LISTENs again.
#include "store/database/listener_impl.h"

#include <algorithm>
#include <utility>

#include "store/database/database_impl.h"

namespace slipstream::store {

namespace {
base::Status database_closed() {
    return base::Status::cancelled("database closed");
}

// Inside one of the connection's callbacks: it is destroyed once they returned.
void drop_later(net::EventLoop& loop, std::unique_ptr<postgres::Connection>& conn) {
    if (!conn) return;
    conn->set_listener(nullptr);
    conn->set_notification_handler(nullptr);
    loop.defer([gone = std::shared_ptr<postgres::Connection>(std::move(conn))] {});
}
}  // namespace

base::Result<std::string> quote_identifier(std::string_view channel) {
    if (channel.find('\0') != std::string_view::npos)
        return base::Status::invalid_argument("a channel name must not contain a NUL byte");
    std::string out = "\"";
    for (char c : channel) {
        if (c == '"') out.push_back('"');  // identifiers double their quotes
        out.push_back(c);
    }
    out.push_back('"');
    return out;
}

ListenerImpl::ListenerImpl(std::shared_ptr<DatabaseImpl> db, ListenerHandlers handlers)
    : db_(std::move(db)), handlers_(std::move(handlers)) {
    retry_.set_callback([this] { connect(); });
}

void ListenerImpl::start(Database::ListenerCallback done) {
    opened_ = std::move(done);
    connect();
}

void ListenerImpl::connect() {
    if (closed_) return;
    std::weak_ptr<ListenerImpl> weak = weak_from_this();
    postgres::ConnectOptions options{.timeout_ns = db_->config().connect_timeout_ns,
                                     .cancel_workers = db_->cancel_workers()};
    conn_ = postgres::Connection::connect(db_->loop(), db_->target().location, options,
                                          [weak](postgres::Connection&, base::Status status) {
                                              if (auto self = weak.lock()) self->on_connected(std::move(status));
                                          });
    conn_->set_notification_handler([weak](const postgres::Notification& n) {
        auto self = weak.lock();
        if (self && !self->closed_ && self->handlers_.on_notification)
            self->handlers_.on_notification(DbNotification{n.channel, n.payload, n.sender_pid});
    });
    conn_->set_listener([weak](postgres::Connection& c) {
        auto self = weak.lock();
        if (self && c.is_broken() && self->conn_.get() == &c) self->on_lost("the listener's connection was lost");
    });
}

void ListenerImpl::on_connected(base::Status status) {
    if (closed_) return;
    if (!status.is_ok()) {
        drop_later(db_->loop(), conn_);
        if (opened_) {  // the first connection: the caller hears why, nothing is retried
            closed_ = true;
            auto done = std::move(opened_);
            opened_ = nullptr;
            db_->forget_listener(this);
            done(status);
            return;
        }
        db_->loop().schedule_after(retry_, backoff_ns_);
        backoff_ns_ = std::min(backoff_ns_ * 2, kMaxRetryNs);
        return;
    }
    if (opened_) {
        connected_.store(true);
        auto done = std::move(opened_);
        opened_ = nullptr;
        done(std::make_unique<DbListener>(shared_from_this()));
        return;
    }
    relisten();
}

void ListenerImpl::relisten() {
    auto left = std::make_shared<std::size_t>(channels_.size() + 1);
    std::weak_ptr<ListenerImpl> weak = weak_from_this();
    postgres::Connection* conn = conn_.get();
    auto one_done = [weak, left, conn](const QueryResult&) {
        auto self = weak.lock();
        if (!self || self->closed_ || self->conn_.get() != conn || conn->is_broken() || --*left > 0) return;
        // Every channel LISTENs again (a channel the server refused is left out, as it was before).
        self->connected_.store(true);
        self->lost_ = false;
        self->backoff_ns_ = kFirstRetryNs;
        if (self->handlers_.on_event) self->handlers_.on_event(ListenerEvent::kReconnected, base::Status::ok());
    };
    for (const std::string& channel : channels_)
        conn_->query("LISTEN " + quote_identifier(channel).value(), {}, one_done);
    conn_->query("SELECT 1", {}, one_done);  // answered after the LISTENs: also the case of no channel
}

void ListenerImpl::on_lost(const std::string& why) {
    if (closed_) return;
    connected_.store(false);
    drop_later(db_->loop(), conn_);
    if (!lost_) {
        lost_ = true;
        if (handlers_.on_event) handlers_.on_event(ListenerEvent::kConnectionLost, base::Status::unavailable(why));
    }
    if (closed_) return;  // the handler closed it
    db_->loop().schedule_after(retry_, backoff_ns_);
    backoff_ns_ = std::min(backoff_ns_ * 2, kMaxRetryNs);
}

bool ListenerImpl::post(std::function<void()> task, const DbListener::Done& refused) {
    if (!closing_.load() && db_->post(std::move(task))) return true;
    refused(database_closed());
    return false;
}

void ListenerImpl::on_statement(const QueryResult& r, const DbListener::Done& done) {
    // A connection lost (or replaced) under the statement: the channel is LISTENed again once one is back.
    const base::StatusCode code = r.status().code();
    if (r.is_ok() || r.error().connection_lost || code == base::StatusCode::kUnavailable ||
        code == base::StatusCode::kCancelled)
        return done(base::Status::ok());
    done(r.status());
}

void ListenerImpl::listen(std::string channel, DbListener::Done done) {
    auto quoted = quote_identifier(channel);
    if (!quoted.is_ok()) return done(quoted.status());
    post(
        [self = shared_from_this(), channel = std::move(channel), sql = "LISTEN " + quoted.value(), done] {
            if (self->closed_) return done(database_closed());
            self->channels_.insert(channel);
            if (!self->conn_) return done(base::Status::ok());  // waiting to reconnect: LISTENed then
            self->conn_->query(sql, {}, [self, done](QueryResult r) { self->on_statement(r, done); });
        },
        done);
}

void ListenerImpl::unlisten(std::string channel, DbListener::Done done) {
    auto quoted = quote_identifier(channel);
    if (!quoted.is_ok()) return done(quoted.status());
    post(
        [self = shared_from_this(), channel = std::move(channel), sql = "UNLISTEN " + quoted.value(), done] {
            if (self->closed_) return done(database_closed());
            self->channels_.erase(channel);
            if (!self->conn_) return done(base::Status::ok());  // waiting to reconnect: LISTENed then
            self->conn_->query(sql, {}, [self, done](QueryResult r) { self->on_statement(r, done); });
        },
        done);
}

void ListenerImpl::close() {
    if (closing_.exchange(true)) return;
    db_->post([self = shared_from_this()] { self->close_on_loop(); });
}

void ListenerImpl::close_on_loop() {
    if (closed_) return;
    closed_ = true;
    connected_.store(false);
    retry_.cancel();
    auto self = shared_from_this();  // forget_listener may drop the database's reference
    if (conn_) {
        conn_->set_listener(nullptr);
        conn_->set_notification_handler(nullptr);
        conn_.reset();  // not inside its callbacks (a posted task): closed now, which ends its LISTENs
    }
    db_->forget_listener(this);
    if (opened_) {
        auto done = std::move(opened_);
        opened_ = nullptr;
        done(database_closed());
    }
}

// ---- DbListener ----

DbListener::~DbListener() {
    if (impl_) impl_->close();
}

void DbListener::listen(std::string channel, Done done) {
    impl_->listen(std::move(channel), std::move(done));
}

void DbListener::unlisten(std::string channel, Done done) {
    impl_->unlisten(std::move(channel), std::move(done));
}

bool DbListener::connected() const {
    return impl_->connected();
}

void DbListener::close() {
    impl_->close();
}

}  // namespace slipstream::store
