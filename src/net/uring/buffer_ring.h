// BufferRing: a provided-buffer ring (IORING_REGISTER_PBUF_RING) that receives pick their buffer from.
#pragma once

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace slipstream::net::uring {

/// `count` buffers of `size` bytes registered as buffer group `group` of one ring. A receive submitted with
/// IOSQE_BUFFER_SELECT takes a buffer only when data arrives, so idle connections hold no memory; the
/// completion names the buffer, and give_back() returns it once its bytes were consumed. Throws
/// std::system_error when registration fails (control plane). Destroy it after the ring was exited (the exit
/// drops the registration; nothing can then write into the buffers). Loop thread only.
class BufferRing {
  public:
    BufferRing(io_uring& ring, std::uint16_t group, std::uint32_t count, std::uint32_t size);
    ~BufferRing();
    BufferRing(const BufferRing&) = delete;
    BufferRing& operator=(const BufferRing&) = delete;

    std::uint16_t group() const { return group_; }
    std::uint32_t buffer_size() const { return size_; }
    /// The bytes of buffer `id`.
    std::span<char> buffer(std::uint16_t id) { return {memory_.get() + std::size_t{id} * size_, size_}; }
    /// Makes buffer `id` available to receives again.
    void give_back(std::uint16_t id) {
        io_uring_buf_ring_add(entries_, buffer(id).data(), size_, id, io_uring_buf_ring_mask(count_), 0);
        io_uring_buf_ring_advance(entries_, 1);
    }

  private:
    std::uint16_t group_;
    std::uint32_t count_;
    std::uint32_t size_;
    io_uring_buf_ring* entries_ = nullptr;  // mmap'ed, page aligned, shared with the kernel
    std::size_t entries_bytes_ = 0;
    std::unique_ptr<char[]> memory_;
};

}  // namespace slipstream::net::uring
