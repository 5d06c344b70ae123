// BufferRing: registration of the provided-buffer ring and buffer recycling.
#include "net/uring/buffer_ring.h"

#include <sys/mman.h>

#include <system_error>

namespace slipstream::net::uring {

BufferRing::BufferRing(io_uring& ring, std::uint16_t group, std::uint32_t count, std::uint32_t size)
    : group_(group), count_(count), size_(size) {
    entries_bytes_ = std::size_t{count} * sizeof(io_uring_buf);
    void* mem = ::mmap(nullptr, entries_bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (mem == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap(buffer ring)");
    entries_ = static_cast<io_uring_buf_ring*>(mem);
    io_uring_buf_reg reg{};
    reg.ring_addr = reinterpret_cast<std::uint64_t>(mem);
    reg.ring_entries = count;
    reg.bgid = group;
    const int rc = io_uring_register_buf_ring(&ring, &reg, 0);
    if (rc < 0) {
        ::munmap(mem, entries_bytes_);
        throw std::system_error(-rc, std::generic_category(), "io_uring_register_buf_ring");
    }
    memory_ = std::make_unique_for_overwrite<char[]>(std::size_t{count} * size);
    io_uring_buf_ring_init(entries_);
    const int mask = io_uring_buf_ring_mask(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        io_uring_buf_ring_add(entries_, memory_.get() + std::size_t{i} * size, size, static_cast<unsigned short>(i),
                              mask, static_cast<int>(i));
    }
    io_uring_buf_ring_advance(entries_, static_cast<int>(count));
}

BufferRing::~BufferRing() {
    ::munmap(entries_, entries_bytes_);
}

}  // namespace slipstream::net::uring
