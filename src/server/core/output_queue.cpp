// OutputQueue append, writev / sendfile flush, and the gathered flush through a write function (TLS).
#include "server/core/output_queue.h"

#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/socket.h"

namespace slipstream::server {
namespace {

// One sendfile(2) call at most this much: the kernel caps a call near 2 GiB anyway.
constexpr std::uint64_t kMaxSendfile = std::uint64_t{1} << 30;

// Room for at least `need` bytes: grows geometrically, zero-fills only the new room, once.
std::size_t grown(std::size_t have, std::size_t need) {
    return std::max({need, 2 * have, std::size_t{1024}});
}

}  // namespace

char* OutputQueue::reserve(std::size_t n) {
    if (pieces_.empty()) return grow_head(n);
    return reserve_tail(n);
}

char* OutputQueue::grow_head(std::size_t n) {
    if (head_.size() - head_end_ < n) {
        if (head_begin_ > 0) {
            // Sent bytes at the front: move the unsent rest down first (append_space hands out no pointer
            // that outlives the next call, so nothing points into the head).
            std::memmove(head_.data(), head_.data() + head_begin_, head_end_ - head_begin_);
            head_end_ -= head_begin_;
            head_begin_ = 0;
        }
        if (head_.size() - head_end_ < n) head_.resize(grown(head_.size(), head_end_ + n));
    }
    char* at = head_.data() + head_end_;
    head_end_ += n;
    size_ += n;
    return at;
}

char* OutputQueue::reserve_tail(std::size_t n) {
    if (!tail_open_) {
        pieces_.emplace_back();
        tail_open_ = true;
    }
    Piece& tail = pieces_.back();
    if (tail.bytes.size() - tail.length < n) tail.bytes.resize(grown(tail.bytes.size(), tail.length + n));
    char* at = tail.bytes.data() + tail.length;
    tail.length += n;
    size_ += n;
    return at;
}

void OutputQueue::append(std::string_view bytes) {
    if (bytes.empty()) return;
    std::memcpy(append_space(bytes.size()), bytes.data(), bytes.size());
}

void OutputQueue::append(std::string&& bytes) {
    if (bytes.size() < kMoveThreshold) {
        append(std::string_view(bytes));
        return;
    }
    push_memory(std::move(bytes));
}

void OutputQueue::push_memory(std::string&& bytes) {
    size_ += bytes.size();
    pieces_.emplace_back();
    pieces_.back().length = bytes.size();
    pieces_.back().bytes = std::move(bytes);
    tail_open_ = false;
}

void OutputQueue::append_file(net::Fd file, std::uint64_t offset, std::uint64_t length) {
    if (length == 0 || !file.valid()) return;
    pieces_.emplace_back();
    Piece& p = pieces_.back();
    p.file = std::move(file);
    p.file_offset = offset;
    p.file_left = length;
    size_ += length;
    tail_open_ = false;
}

std::size_t OutputQueue::gather(iovec* iov, std::size_t max) const {
    std::size_t n = 0;
    if (!head_empty()) {
        iov[n].iov_base = const_cast<char*>(head_.data()) + head_begin_;
        iov[n].iov_len = head_end_ - head_begin_;
        ++n;
    }
    for (auto it = pieces_.begin(); it != pieces_.end() && n < max && !it->is_file(); ++it, ++n) {
        const std::size_t skip = it == pieces_.begin() ? front_offset_ : 0;
        iov[n].iov_base = const_cast<char*>(it->bytes.data()) + skip;
        iov[n].iov_len = it->length - skip;
    }
    return n;
}

template <typename Step>
base::Result<std::size_t> OutputQueue::drain(Step&& step) {
    std::size_t total = 0;
    while (size_ > 0) {
        base::Result<std::size_t> r = step();
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

// drain() for a queue that holds the head alone (a keep-alive response's usual output): no gathering, and
// the first send usually takes it all.
template <typename Send>
base::Result<std::size_t> OutputQueue::drain_head(Send&& send) {
    std::size_t total = 0;
    while (size_ > 0) {
        base::Result<std::size_t> r = send(head_view());
        if (!r.is_ok()) {
            if (total > 0 && r.status().is_unavailable()) return total;
            return r;
        }
        if (*r == 0) break;
        total += *r;
        size_ -= *r;
        consume_head(*r);
    }
    return total;
}

base::Result<std::size_t> OutputQueue::after_first(std::size_t first, base::Result<std::size_t>&& more) {
    if (more.is_ok()) return first + *more;
    if (more.status().is_unavailable()) return first;
    return std::move(more);
}

base::Result<std::size_t> OutputQueue::flush_rest(int fd, base::Result<std::size_t>&& first) {
    if (!first.is_ok()) return std::move(first);
    size_ -= *first;
    consume_head(*first);
    // The socket took part of the head: go on as drain() does (the next send usually says "would block").
    return after_first(*first, flush_pieces(fd));
}

base::Result<std::size_t> OutputQueue::flush_pieces(int fd) {
    if (pieces_.empty()) return drain_head([fd](std::string_view bytes) { return net::write_some(fd, bytes); });
    return drain([&]() -> base::Result<std::size_t> {
        if (head_empty() && pieces_.front().is_file()) return send_file_front(fd);
        constexpr std::size_t kMaxIov = 64;
        iovec iov[kMaxIov];
        std::size_t n = gather(iov, kMaxIov);
        if (n == 1) return net::write_some(fd, {static_cast<const char*>(iov[0].iov_base), iov[0].iov_len});
        return net::writev_some(fd, {iov, n});
    });
}

base::Result<std::size_t> OutputQueue::flush_to_rest(WriteFn write, void* context, std::span<char> file_buffer,
                                                     base::Result<std::size_t>&& first) {
    if (!first.is_ok()) return std::move(first);
    size_ -= *first;
    consume_head(*first);
    return after_first(*first, flush_to_pieces(write, context, file_buffer));
}

base::Result<std::size_t> OutputQueue::flush_to_pieces(WriteFn write, void* context, std::span<char> file_buffer) {
    if (pieces_.empty()) {
        return drain_head([&](std::string_view bytes) {
            const iovec one{const_cast<char*>(bytes.data()), bytes.size()};
            return write(context, {&one, 1});
        });
    }
    return drain([&]() -> base::Result<std::size_t> {
        if (head_empty() && pieces_.front().is_file()) {
            base::Result<std::size_t> got = read_file_front(file_buffer);
            if (!got.is_ok()) return got.status();
            iovec one{file_buffer.data(), *got};
            return write(context, {&one, 1});
        }
        constexpr std::size_t kMaxIov = 16;
        iovec iov[kMaxIov];
        std::size_t n = gather(iov, kMaxIov);
        return write(context, {iov, n});
    });
}

// The file's offset is advanced by consume(), not by the kernel: sendfile gets a copy.
base::Result<std::size_t> OutputQueue::send_file_front(int fd) {
    const Piece& p = pieces_.front();
    while (true) {
        off_t offset = static_cast<off_t>(p.file_offset);
        ssize_t n = ::sendfile(fd, p.file.get(), &offset, std::min(p.file_left, kMaxSendfile));
        if (n > 0) return static_cast<std::size_t>(n);
        if (n == 0) return base::Status::io_error("the file ended before its region was sent");
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return base::Status::unavailable("socket full");
        return base::Status::io_error("sendfile failed");
    }
}

base::Result<std::size_t> OutputQueue::read_file_front(std::span<char> buffer) const {
    const Piece& p = pieces_.front();
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(p.file_left, buffer.size()));
    std::size_t got = 0;
    while (got < want) {
        ssize_t n = ::pread(p.file.get(), buffer.data() + got, want - got, static_cast<off_t>(p.file_offset + got));
        if (n > 0) {
            got += static_cast<std::size_t>(n);
        } else if (n == 0) {
            break;
        } else if (errno != EINTR) {
            return base::Status::io_error("reading the file failed");
        }
    }
    if (got == 0) return base::Status::io_error("the file ended before its region was sent");
    return got;
}

void OutputQueue::release_head() {
    std::string().swap(head_);
}

void OutputQueue::consume(std::size_t n) {
    size_ -= n;
    if (!head_empty()) {
        const std::size_t take = std::min(n, head_end_ - head_begin_);
        consume_head(take);
        n -= take;
    }
    while (n > 0) {
        Piece& front = pieces_.front();
        if (front.is_file()) {
            std::uint64_t take = std::min<std::uint64_t>(n, front.file_left);
            front.file_offset += take;
            front.file_left -= take;
            n -= static_cast<std::size_t>(take);
            if (front.file_left > 0) return;
            pieces_.pop_front();  // closes the file
            continue;
        }
        std::size_t left = front.length - front_offset_;
        if (n < left) {
            front_offset_ += n;
            return;
        }
        n -= left;
        front_offset_ = 0;
        pieces_.pop_front();
        if (pieces_.empty()) tail_open_ = false;  // later appends go to the head again
    }
}

void OutputQueue::take_all(OutputQueue& other) {
    if (other.empty()) return;
    if (!other.head_empty()) {
        if (other.head_end_ - other.head_begin_ < kMoveThreshold) {
            append(other.head_view());
        } else {
            other.head_.resize(other.head_end_);
            other.head_.erase(0, other.head_begin_);
            push_memory(std::move(other.head_));
        }
    }
    for (auto& piece : other.pieces_) {
        const std::size_t skip = &piece == &other.pieces_.front() ? other.front_offset_ : 0;
        if (piece.is_file()) {
            append_file(std::move(piece.file), piece.file_offset, piece.file_left);
        } else if (piece.length - skip < kMoveThreshold) {
            append(piece.view().substr(skip));
        } else {
            piece.bytes.resize(piece.length);
            piece.bytes.erase(0, skip);
            push_memory(std::move(piece.bytes));
        }
    }
    other.clear();
}

void OutputQueue::clear() {
    pieces_.clear();
    front_offset_ = 0;
    clear_head();
    size_ = 0;
    tail_open_ = false;
}

}  // namespace slipstream::server
