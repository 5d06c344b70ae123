// RecyclingAllocator: size classes, the block header, and malloc for what is too large to keep.
#include "http/h2/recycling_allocator.h"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace slipstream::http::h2::detail {
namespace {

constexpr std::size_t kHeader = 16;
constexpr std::uint32_t kLarge = 0xFFFFFFFFu;
constexpr std::size_t kSmallest = 64;

// The class of a block holding `total` bytes (header included), or kLarge: the smallest c with
// total <= kSmallest << c.
std::uint32_t class_of(std::size_t total, std::size_t classes) {
    const auto c = static_cast<std::uint32_t>(total <= kSmallest ? 0 : std::bit_width((total - 1) / kSmallest));
    return c < classes ? c : kLarge;
}

std::size_t class_size(std::uint32_t c) {
    return kSmallest << c;
}

std::uint32_t& header_of(void* p) {
    return *reinterpret_cast<std::uint32_t*>(static_cast<char*>(p) - kHeader);
}

// A kept block's link to the next kept block of its class, in the header's second half.
void* next_of(void* block) {
    void* next;
    std::memcpy(&next, static_cast<char*>(block) + 8, sizeof next);
    return next;
}

void set_next(void* block, void* next) {
    std::memcpy(static_cast<char*>(block) + 8, &next, sizeof next);
}

}  // namespace

RecyclingAllocator::~RecyclingAllocator() {
    for (FreeList& list : free_) {
        while (list.head != nullptr) {
            void* block = list.head;
            list.head = next_of(block);
            std::free(block);
        }
    }
}

void* RecyclingAllocator::allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() - kHeader) return nullptr;
    std::uint32_t c = class_of(n + kHeader, kClasses);
    void* block = nullptr;
    if (c != kLarge && free_[c].head != nullptr) {
        block = free_[c].head;
        free_[c].head = next_of(block);
        --free_[c].count;
    } else {
        block = std::malloc(c == kLarge ? n + kHeader : class_size(c));
        if (block == nullptr) return nullptr;
    }
    *static_cast<std::uint32_t*>(block) = c;
    return static_cast<char*>(block) + kHeader;
}

void* RecyclingAllocator::allocate_zeroed(std::size_t count, std::size_t size) {
    if (size != 0 && count > std::numeric_limits<std::size_t>::max() / size) return nullptr;
    void* p = allocate(count * size);
    if (p != nullptr) std::memset(p, 0, count * size);
    return p;
}

void* RecyclingAllocator::reallocate(void* p, std::size_t n) {
    if (p == nullptr) return allocate(n);
    std::uint32_t c = header_of(p);
    if (c == kLarge) {
        if (n > std::numeric_limits<std::size_t>::max() - kHeader) return nullptr;
        void* block = std::realloc(static_cast<char*>(p) - kHeader, n + kHeader);
        return block == nullptr ? nullptr : static_cast<char*>(block) + kHeader;
    }
    std::size_t room = class_size(c) - kHeader;
    if (n <= room) return p;
    void* q = allocate(n);
    if (q == nullptr) return nullptr;
    std::memcpy(q, p, room);
    release(p);
    return q;
}

void RecyclingAllocator::release(void* p) {
    if (p == nullptr) return;
    std::uint32_t c = header_of(p);
    void* block = static_cast<char*>(p) - kHeader;
    if (c == kLarge || free_[c].count >= kKeep) {
        std::free(block);
        return;
    }
    set_next(block, free_[c].head);
    free_[c].head = block;
    ++free_[c].count;
}

}  // namespace slipstream::http::h2::detail
