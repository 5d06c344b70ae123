// CopyStream: a mutex-guarded queue of pieces and a wake-up for a consumer that found it empty.
#include "store/database/copy_stream.h"

#include <utility>

#include "store/postgres/copy_data.h"

namespace slipstream::store {

void CopyStream::push(std::string piece) {
    if (piece.empty()) return;  // an empty piece would read as the end
    std::unique_lock<std::mutex> lock(mutex_);
    if (finished_ || failed_) return;
    pieces_.push_back(std::move(piece));
    notify(lock);
}

void CopyStream::finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_) return;
    finished_ = true;
    notify(lock);
}

void CopyStream::fail(std::string reason) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (finished_ || failed_) return;
    failed_ = true;
    reason_ = reason.empty() ? std::string("COPY data failed") : std::move(reason);
    pieces_.clear();
    notify(lock);
}

base::Status CopyStream::pull(std::string& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_) return base::Status::cancelled(reason_);
    if (!pieces_.empty()) {
        out = std::move(pieces_.front());
        pieces_.pop_front();
        return base::Status::ok();
    }
    if (finished_) return base::Status::ok();
    waiting_ = true;
    return postgres::copy_data_pending();
}

void CopyStream::set_wake(std::function<void()> wake) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_ = std::move(wake);
    notify(lock);  // something may have arrived (or the producer ended) before the wake-up was in place
}

void CopyStream::notify(std::unique_lock<std::mutex>& lock) {
    if (!waiting_ || !wake_) return;
    waiting_ = false;
    std::function<void()> wake = wake_;
    lock.unlock();
    wake();
}

}  // namespace slipstream::store
