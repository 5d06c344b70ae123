// OutputQueue: bytes waiting to be written to a socket: small pieces coalesced, large bodies and files zero-copy.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "net/fd.h"
#include "net/socket.h"

namespace slipstream::server {

/// Small writes (response heads, short bodies) are appended to a coalescing piece (the head buffer while
/// nothing else is queued: a keep-alive response's flush is one inline send, ~16 instructions, callgrind);
/// a large body is moved in as its own piece, so it is never copied; a file region is a piece of its own,
/// sent with sendfile(2) by flush() and read in bounded pieces by flush_to(). Pieces leave in the order
/// they were queued. The queue owns each file descriptor and closes it when its region is sent or the
/// queue is cleared or destroyed. size() counts file bytes too. Loop thread only.
class OutputQueue {
  public:
    /// Bodies at least this large are queued by move instead of copied.
    static constexpr std::size_t kMoveThreshold = 16 * 1024;

    void append(std::string_view bytes);
    void append(std::string&& bytes);
    /// Appends `n` (> 0) bytes the caller writes in place at the returned pointer, before any other call on
    /// the queue (how a response head is encoded without a temporary string).
    char* append_space(std::size_t n) {
        // Inline for the common case (room in the head, nothing after it): the response encoder's every call.
        if (head_.size() - head_end_ >= n && pieces_.empty()) {
            char* at = head_.data() + head_end_;
            head_end_ += n;
            size_ += n;
            return at;
        }
        return reserve(n);
    }
    /// Queues `length` bytes of `file` from `offset` (length 0: nothing is queued and the file is closed).
    void append_file(net::Fd file, std::uint64_t offset, std::uint64_t length);
    /// Moves everything queued in `other` to the end of this queue.
    void take_all(OutputQueue& other);
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    /// Writes as much as the socket takes. Returns the bytes written; kUnavailable when the socket would
    /// block before anything was written; kIoError when the connection is broken or a queued file ended
    /// before its region did (it shrank: the response cannot be completed, so the connection must close).
    base::Result<std::size_t> flush(int fd) {
        // Inline for the common case: the head alone (a keep-alive response), taken whole by one send.
        if (pieces_.empty() && size_ > 0) {
            base::Result<std::size_t> r = net::write_some(fd, head_view());
            if (r.is_ok() && *r == size_) {
                size_ = 0;
                clear_head();
                return r;
            }
            return flush_rest(fd, std::move(r));
        }
        return flush_pieces(fd);
    }
    /// Writes through `write` instead of a socket (how a TLS connection flushes): `write` gets the queued
    /// pieces in order and returns the bytes it took, or kUnavailable / an error as write_some does. A file
    /// piece is read (pread) into `file_buffer` and passed alone; a retry after kUnavailable reads the same
    /// bytes again. Same outcomes as flush(fd).
    using WriteFn = base::Result<std::size_t> (*)(void* context, std::span<const iovec> pieces);
    base::Result<std::size_t> flush_to(WriteFn write, void* context, std::span<char> file_buffer) {
        // Inline for the common case, as flush(fd).
        if (pieces_.empty() && size_ > 0) {
            const iovec head{head_.data() + head_begin_, size_};
            base::Result<std::size_t> r = write(context, {&head, 1});
            if (r.is_ok() && *r == size_) {
                size_ = 0;
                clear_head();
                return r;
            }
            return flush_to_rest(write, context, file_buffer, std::move(r));
        }
        return flush_to_pieces(write, context, file_buffer);
    }
    /// Drops everything (the connection is closing without sending).
    void clear();

  private:
    struct Piece {
        // A memory piece (when `file` is not valid) is the first `length` bytes of `bytes`. The coalescing
        // piece keeps `bytes` sized to its room, so an append writes in place without first zero-filling.
        std::string bytes;
        std::size_t length = 0;
        net::Fd file;                   // a file piece
        std::uint64_t file_offset = 0;  // next file byte to send
        std::uint64_t file_left = 0;    // file bytes still to send
        bool is_file() const { return file.valid(); }
        std::string_view view() const { return {bytes.data(), length}; }
    };

    // Coalesced memory kept past a full send while it is at most this large (the next response reuses it).
    static constexpr std::size_t kKeepCapacity = 64 * 1024;

    // The write loop both flushes share: `step` writes from the front; stops when the queue is empty, the
    // sink would block or fails.
    template <typename Step>
    base::Result<std::size_t> drain(Step&& step);
    template <typename Send>
    base::Result<std::size_t> drain_head(Send&& send);
    // Fills `iov` with the head and the memory pieces after it, up to the first file piece. Returns the count.
    std::size_t gather(iovec* iov, std::size_t max) const;
    base::Result<std::size_t> send_file_front(int fd);
    base::Result<std::size_t> read_file_front(std::span<char> buffer) const;
    bool head_empty() const { return head_begin_ == head_end_; }
    std::string_view head_view() const { return {head_.data() + head_begin_, head_end_ - head_begin_}; }
    void consume(std::size_t n);
    // After the inline flush's first send (`first`) failed or took part of the head.
    base::Result<std::size_t> flush_rest(int fd, base::Result<std::size_t>&& first);
    base::Result<std::size_t> flush_pieces(int fd);
    base::Result<std::size_t> flush_to_rest(WriteFn write, void* context, std::span<char> file_buffer,
                                            base::Result<std::size_t>&& first);
    base::Result<std::size_t> flush_to_pieces(WriteFn write, void* context, std::span<char> file_buffer);
    // The outcome of a flush whose first write took `first` bytes (part of the head) and whose rest did `more`.
    static base::Result<std::size_t> after_first(std::size_t first, base::Result<std::size_t>&& more);
    void consume_head(std::size_t n) {
        head_begin_ += n;
        if (head_begin_ == head_end_) clear_head();
    }
    void clear_head() {
        head_begin_ = head_end_ = 0;
        if (head_.size() > kKeepCapacity) release_head();  // sent in full: memory is kept unless a large one grew it
    }
    void release_head();
    void push_memory(std::string&& bytes);
    // Room for `n` more bytes at the end of the queue: in the head while no piece follows it, else in the
    // coalescing piece at the back (opened when there is none). Returns where they go.
    char* reserve(std::size_t n);
    char* grow_head(std::size_t n);
    char* reserve_tail(std::size_t n);

    // The head: coalesced bytes [head_begin_, head_end_) of head_ that leave before every piece in pieces_.
    // Small appends land here while pieces_ is empty, so a keep-alive connection's responses (the common
    // case) never touch the deque. head_ is sized to its room, as a coalescing piece's bytes are.
    std::string head_;
    std::size_t head_begin_ = 0;
    std::size_t head_end_ = 0;
    std::deque<Piece> pieces_;      // what follows the head: moved bodies, files, and appends after them
    std::size_t front_offset_ = 0;  // bytes of a memory pieces_.front() already written (only with the head empty)
    std::size_t size_ = 0;
    bool tail_open_ = false;  // pieces_.back() is a memory piece that may receive small appends
};

}  // namespace slipstream::server
