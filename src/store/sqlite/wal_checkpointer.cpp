// WalCheckpointer: the WAL hook that signals, the thread that checkpoints.
#include "store/sqlite/wal_checkpointer.h"

#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pthread.h>

#include "base/log.h"
#include "store/sqlite/database.h"
#include "store/sqlite/session.h"

namespace slipstream::store::sqlite {

base::Result<std::shared_ptr<WalCheckpointer>> WalCheckpointer::start(const DatabaseOptions& options) {
    DatabaseOptions own = options;
    own.checkpointer = nullptr;
    SLIPSTREAM_ASSIGN_OR_RETURN(auto connection, open_connection(own));
    std::shared_ptr<WalCheckpointer> self(
        new WalCheckpointer(std::move(connection), options.checkpoint_pages, options.checkpoint_nice));
    self->thread_ = std::thread([raw = self.get()] { raw->loop(); });
    pthread_setname_np(self->thread_.native_handle(), "ss-sqlite-ckpt");
    return self;
}

WalCheckpointer::WalCheckpointer(std::unique_ptr<Session> connection, std::size_t pages, int nice)
    : connection_(std::move(connection)), pages_(pages == 0 ? 1 : pages), nice_(nice) {}

WalCheckpointer::~WalCheckpointer() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void WalCheckpointer::install(Session& session, const std::shared_ptr<WalCheckpointer>& self) {
    session.attach(self);
    sqlite3_wal_hook(session.handle(), &WalCheckpointer::on_commit, self.get());
}

std::size_t WalCheckpointer::checkpoints() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_;
}

int WalCheckpointer::on_commit(void* self, sqlite3* db, const char* schema, int pages) {
    auto* c = static_cast<WalCheckpointer*>(self);
    const auto n = static_cast<std::size_t>(pages < 0 ? 0 : pages);
    if (n >= c->pages_ * kInlineFactor) {
        // The background thread fell behind: bound the log here, as SQLite's own automatic checkpoint would.
        sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        return SQLITE_OK;
    }
    if (n < c->pages_) return SQLITE_OK;
    {
        std::lock_guard<std::mutex> lock(c->mutex_);
        if (c->requested_) return SQLITE_OK;
        c->requested_ = true;
    }
    c->wake_.notify_one();
    return SQLITE_OK;
}

void WalCheckpointer::loop() {
    if (nice_ > 0) setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice_);
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        wake_.wait(lock, [this] { return stopping_ || requested_; });
        if (stopping_) return;
        requested_ = false;
        lock.unlock();
        int log = 0;
        int copied = 0;
        int rc = sqlite3_wal_checkpoint_v2(connection_->handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
        if (rc != SQLITE_OK && rc != SQLITE_BUSY)
            base::log_message(base::LogLevel::kWarn,
                              std::string("sqlite: background WAL checkpoint failed: ") + sqlite3_errstr(rc));
        lock.lock();
        ++done_;
    }
}

}  // namespace slipstream::store::sqlite
