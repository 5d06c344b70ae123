// OutputQueue append and writev flush.
#include "server/output_queue.h"

#include <algorithm>

#include "net/socket.h"

namespace slipstream::server {

void OutputQueue::append(std::string_view bytes) {
    if (bytes.empty()) return;
    if (!tail_open_) {
        pieces_.emplace_back();
        pieces_.back().reserve(std::max<std::size_t>(bytes.size(), 1024));
        tail_open_ = true;
    }
    pieces_.back().append(bytes);
    size_ += bytes.size();
}

void OutputQueue::append(std::string&& bytes) {
    if (bytes.size() < kMoveThreshold) {
        append(std::string_view(bytes));
        return;
    }
    size_ += bytes.size();
    pieces_.push_back(std::move(bytes));
    tail_open_ = false;
}

base::Result<std::size_t> OutputQueue::flush(int fd) {
    std::size_t total = 0;
    while (size_ > 0) {
        constexpr std::size_t kMaxIov = 64;
        iovec iov[kMaxIov];
        std::size_t n = 0;
        for (auto it = pieces_.begin(); it != pieces_.end() && n < kMaxIov; ++it, ++n) {
            std::size_t skip = (n == 0) ? front_offset_ : 0;
            iov[n].iov_base = it->data() + skip;
            iov[n].iov_len = it->size() - skip;
        }
        base::Result<std::size_t> r =
            n == 1 ? net::write_some(fd, {static_cast<const char*>(iov[0].iov_base), iov[0].iov_len})
                   : net::writev_some(fd, {iov, n});
        if (!r.is_ok()) {
            if (total > 0 && r.status().is_unavailable()) return total;
            return r.status();
        }
        total += *r;
        consume(*r);
        if (*r == 0) break;
    }
    return total;
}

base::Result<std::size_t> OutputQueue::flush_to(WriteFn write, void* context) {
    std::size_t total = 0;
    while (size_ > 0) {
        constexpr std::size_t kMaxIov = 16;
        iovec iov[kMaxIov];
        std::size_t n = 0;
        for (auto it = pieces_.begin(); it != pieces_.end() && n < kMaxIov; ++it, ++n) {
            std::size_t skip = (n == 0) ? front_offset_ : 0;
            iov[n].iov_base = it->data() + skip;
            iov[n].iov_len = it->size() - skip;
        }
        base::Result<std::size_t> r = write(context, {iov, n});
        if (!r.is_ok()) {
            if (total > 0 && r.status().is_unavailable()) return total;
            return r.status();
        }
        total += *r;
        consume(*r);
        if (*r == 0) break;
    }
    return total;
}

void OutputQueue::consume(std::size_t n) {
    size_ -= n;
    while (n > 0) {
        std::string& front = pieces_.front();
        std::size_t left = front.size() - front_offset_;
        if (n < left) {
            front_offset_ += n;
            return;
        }
        n -= left;
        front_offset_ = 0;
        if (pieces_.size() == 1 && tail_open_ && front.capacity() <= 64 * 1024) {
            front.clear();  // keep the coalescing piece's memory for the next response
            return;
        }
        pieces_.pop_front();
        if (pieces_.empty()) tail_open_ = false;
    }
}

void OutputQueue::take_all(OutputQueue& other) {
    if (other.empty()) return;
    if (other.front_offset_ > 0) other.pieces_.front().erase(0, other.front_offset_);
    for (auto& piece : other.pieces_) {
        if (piece.size() < kMoveThreshold) {
            append(std::string_view(piece));
        } else {
            size_ += piece.size();
            pieces_.push_back(std::move(piece));
            tail_open_ = false;
        }
    }
    other.clear();
}

void OutputQueue::clear() {
    pieces_.clear();
    front_offset_ = 0;
    size_ = 0;
    tail_open_ = false;
}

}  // namespace slipstream::server
