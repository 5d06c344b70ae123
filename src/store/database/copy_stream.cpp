// CopyStream: a mutex-guarded, bounded queue of pieces, a wake-up for a consumer that found it empty and one for a
// producer that found it full.
#include "store/database/copy_stream.h"

#include <utility>

#include "store/postgres/copy_data.h"

namespace slipstream::store {

bool CopyStream::push(std::string piece) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (piece.empty() || finished_ || failed_ || closed_) return !closed_;  // an empty piece would read as the end
    bytes_ += piece.size();
    pieces_.push_back(std::move(piece));
    const bool room = bytes_ < limit_;
    notify(lock);
    return room;
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
    bytes_ = 0;
    notify(lock);
}

bool CopyStream::when_drained(std::function<void()> drained) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_ || bytes_ <= limit_ / 2) {
        lock.unlock();
        drained();
        return true;
    }
    drained_ = std::move(drained);
    return false;
}

base::Status CopyStream::pull(std::string& out) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_) return base::Status::cancelled(reason_);
    if (!pieces_.empty()) {
        out = std::move(pieces_.front());
        pieces_.pop_front();
        bytes_ -= out.size();
        if (bytes_ <= limit_ / 2) notify_drained(lock);
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

void CopyStream::close() {
    std::unique_lock<std::mutex> lock(mutex_);
    closed_ = true;
    pieces_.clear();
    bytes_ = 0;
    wake_ = nullptr;
    notify_drained(lock);
}

std::size_t CopyStream::buffered() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
}

void CopyStream::notify(std::unique_lock<std::mutex>& lock) {
    if (!waiting_ || !wake_) return;
    waiting_ = false;
    std::function<void()> wake = wake_;
    lock.unlock();
    wake();
}

void CopyStream::notify_drained(std::unique_lock<std::mutex>& lock) {
    if (!drained_) return;
    std::function<void()> drained = std::move(drained_);
    drained_ = nullptr;
    lock.unlock();
    drained();
}

}  // namespace slipstream::store
