// Arena block management.
#include "base/arena.h"

#include <algorithm>

namespace slipstream::base {

void* Arena::allocate_slow(std::size_t bytes, std::size_t align) {
    std::size_t size = std::max(block_size_, bytes + align);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    block_sizes_.push_back(size);
    cursor_ = blocks_.back().get();
    end_ = cursor_ + size;
    return allocate(bytes, align);
}

void Arena::reset() {
    if (blocks_.empty()) return;
    blocks_.resize(1);
    block_sizes_.resize(1);
    cursor_ = blocks_[0].get();
    end_ = cursor_ + block_sizes_[0];
    used_ = 0;
}

}  // namespace slipstream::base
