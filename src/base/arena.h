// Arena: a bump allocator for per-request data, freed all at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

namespace slipstream::base {

/// Allocations live until reset() or destruction. Not thread-safe. Objects allocated here must be
/// trivially destructible (the arena never runs destructors).
class Arena {
  public:
    explicit Arena(std::size_t block_size = 4096) : block_size_(block_size) {}
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    void* allocate(std::size_t bytes, std::size_t align = alignof(std::max_align_t)) {
        std::uintptr_t p = (reinterpret_cast<std::uintptr_t>(cursor_) + align - 1) & ~(align - 1);
        if (cursor_ == nullptr || p + bytes > reinterpret_cast<std::uintptr_t>(end_))
            return allocate_slow(bytes, align);
        cursor_ = reinterpret_cast<char*>(p + bytes);
        used_ += bytes;
        return reinterpret_cast<void*>(p);
    }

    template <typename T, typename... Args>
    T* make(Args&&... args) {
        static_assert(std::is_trivially_destructible_v<T>, "arena objects are never destroyed");
        return new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
    }

    template <typename T>
    T* make_array(std::size_t n) {
        static_assert(std::is_trivially_destructible_v<T>, "arena objects are never destroyed");
        T* p = static_cast<T*>(allocate(sizeof(T) * (n ? n : 1), alignof(T)));
        for (std::size_t i = 0; i < n; ++i)
            new (p + i) T();
        return p;
    }

    /// Copies bytes into the arena and returns a view of the copy.
    std::string_view copy(std::string_view s) {
        if (s.empty()) return {};
        char* p = static_cast<char*>(allocate(s.size(), 1));
        std::memcpy(p, s.data(), s.size());
        return {p, s.size()};
    }

    /// Frees everything but the first block, which is kept for the next request.
    void reset();
    /// Bytes handed out since the last reset.
    std::size_t used() const { return used_; }

  private:
    void* allocate_slow(std::size_t bytes, std::size_t align);

    std::size_t block_size_;
    std::vector<std::unique_ptr<char[]>> blocks_;
    std::vector<std::size_t> block_sizes_;
    char* cursor_ = nullptr;
    char* end_ = nullptr;
    std::size_t used_ = 0;
};

}  // namespace slipstream::base
