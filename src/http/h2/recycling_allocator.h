// RecyclingAllocator: one session's nghttp2 allocations, recycled through per-size free lists.
#pragma once

#include <array>
#include <cstddef>

namespace slipstream::http::h2::detail {

/// nghttp2 allocates and frees a few blocks per stream (stream state, outbound items, the copied response
/// fields); with glibc several of those take its slow path. Blocks up to 8 KiB are kept in free lists by
/// power-of-two size class (at most kKeep per class) and handed out again; larger ones go to malloc. Each
/// block carries a 16-byte header with its class, so alignment matches malloc's; a kept block links to the
/// next in its header (an intrusive list: keeping or reusing one is a few loads and stores). Loop thread
/// only; frees what it keeps when destroyed (after the nghttp2 session it serves).
class RecyclingAllocator {
  public:
    RecyclingAllocator() = default;
    ~RecyclingAllocator();
    RecyclingAllocator(const RecyclingAllocator&) = delete;
    RecyclingAllocator& operator=(const RecyclingAllocator&) = delete;

    void* allocate(std::size_t n);
    void* allocate_zeroed(std::size_t count, std::size_t size);
    void* reallocate(void* p, std::size_t n);
    void release(void* p);

  private:
    static constexpr std::size_t kClasses = 8;  // 64 B .. 8 KiB with the header
    static constexpr std::size_t kKeep = 64;
    struct FreeList {
        void* head = nullptr;
        std::size_t count = 0;
    };
    std::array<FreeList, kClasses> free_;
};

}  // namespace slipstream::http::h2::detail
