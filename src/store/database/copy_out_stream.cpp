// CopyOutStream: CopyData messages gathered into pieces under a mutex; a pause past the limit, a resume at half.
#include "store/database/copy_out_stream.h"

#include <utility>

#include "store/postgres/copy_data.h"

namespace slipstream::store {

base::Status CopyOutStream::offer(std::string_view data) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) return base::Status::cancelled("the COPY's consumer stopped reading");
    if (pieces_.empty() || pieces_.back().size() >= kPiece) pieces_.emplace_back();
    pieces_.back().append(data);
    bytes_ += data.size();
    const bool full = bytes_ >= limit_;
    if (full) paused_ = true;
    std::function<void()> ready = std::move(ready_);
    ready_ = nullptr;
    lock.unlock();
    if (ready) ready();
    return full ? postgres::copy_data_pending() : base::Status::ok();
}

void CopyOutStream::set_resume(std::function<void()> resume) {
    std::unique_lock<std::mutex> lock(mutex_);
    resume_ = std::move(resume);
    resume_if_drained(lock);  // the consumer may have taken enough before the hook was in place
}

void CopyOutStream::end() {
    std::unique_lock<std::mutex> lock(mutex_);
    ended_ = true;
    paused_ = false;
    resume_ = nullptr;
    std::function<void()> ready = std::move(ready_);
    ready_ = nullptr;
    lock.unlock();
    if (ready) ready();
}

bool CopyOutStream::take(std::string& out, std::size_t max_bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (pieces_.empty()) return false;
    out = std::move(pieces_.front());
    pieces_.pop_front();
    while (!pieces_.empty() && out.size() + pieces_.front().size() <= max_bytes) {
        out += pieces_.front();
        pieces_.pop_front();
    }
    bytes_ -= out.size();
    resume_if_drained(lock);
    return true;
}

bool CopyOutStream::finished() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ended_ && pieces_.empty();
}

bool CopyOutStream::when_ready(std::function<void()> ready) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!pieces_.empty() || ended_) {
        lock.unlock();
        ready();
        return true;
    }
    ready_ = std::move(ready);
    return false;
}

void CopyOutStream::close() {
    std::unique_lock<std::mutex> lock(mutex_);
    closed_ = true;
    pieces_.clear();
    bytes_ = 0;
    ready_ = nullptr;
    resume_if_drained(lock);
}

std::size_t CopyOutStream::buffered() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
}

void CopyOutStream::resume_if_drained(std::unique_lock<std::mutex>& lock) {
    if (!paused_ || !resume_ || bytes_ > limit_ / 2) return;
    paused_ = false;
    std::function<void()> resume = resume_;
    lock.unlock();
    resume();
}

}  // namespace slipstream::store
