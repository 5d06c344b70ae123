// OutputQueue append, writev / sendfile flush, and the gathered flush through a write function (TLS).
#include "server/output_queue.h"

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

}  // namespace

char* OutputQueue::reserve_tail(std::size_t n) {
    if (!tail_open_) {
        pieces_.emplace_back();
        tail_open_ = true;
    }
    Piece& tail = pieces_.back();
    if (tail.bytes.size() - tail.length < n) {
        // Grows geometrically; zero-fills only the new room, once.
        tail.bytes.resize(std::max({tail.length + n, 2 * tail.bytes.size(), std::size_t{1024}}));
    }
    char* at = tail.bytes.data() + tail.length;
    tail.length += n;
    size_ += n;
    return at;
}

void OutputQueue::append(std::string_view bytes) {
    if (bytes.empty()) return;
    std::memcpy(reserve_tail(bytes.size()), bytes.data(), bytes.size());
}

char* OutputQueue::append_space(std::size_t n) {
    return reserve_tail(n);
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
    // The kept (empty) coalescing piece must not sit in front of a file: gather() would find nothing to write.
    if (tail_open_ && pieces_.back().length == 0) pieces_.pop_back();
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
    for (auto it = pieces_.begin(); it != pieces_.end() && n < max && !it->is_file(); ++it, ++n) {
        std::size_t skip = (n == 0) ? front_offset_ : 0;
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

base::Result<std::size_t> OutputQueue::flush(int fd) {
    return drain([&]() -> base::Result<std::size_t> {
        const Piece& front = pieces_.front();
        if (front.is_file()) return send_file_front(fd);
        if (&front == &pieces_.back()) {
            // One memory piece (a keep-alive response's usual output): no gathering, a plain send.
            return net::write_some(fd, front.view().substr(front_offset_));
        }
        constexpr std::size_t kMaxIov = 64;
        iovec iov[kMaxIov];
        std::size_t n = gather(iov, kMaxIov);
        if (n == 1) return net::write_some(fd, {static_cast<const char*>(iov[0].iov_base), iov[0].iov_len});
        return net::writev_some(fd, {iov, n});
    });
}

base::Result<std::size_t> OutputQueue::flush_to(WriteFn write, void* context, std::span<char> file_buffer) {
    return drain([&]() -> base::Result<std::size_t> {
        if (pieces_.front().is_file()) {
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

void OutputQueue::consume(std::size_t n) {
    size_ -= n;
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
        if (tail_open_ && &front == &pieces_.back() && front.bytes.size() <= 64 * 1024) {  // the only piece
            front.length = 0;  // keep the coalescing piece's memory for the next response
            return;
        }
        pieces_.pop_front();
        if (pieces_.empty()) tail_open_ = false;
    }
}

void OutputQueue::take_all(OutputQueue& other) {
    if (other.empty()) return;
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
    size_ = 0;
    tail_open_ = false;
}

}  // namespace slipstream::server
