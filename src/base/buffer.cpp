// Buffer growth and compaction.
#include "base/buffer.h"

#include <algorithm>

namespace slipstream::base {

void Buffer::reserve(std::size_t capacity) {
    if (capacity <= capacity_) return;
    auto fresh = std::make_unique_for_overwrite<char[]>(capacity);
    if (size() > 0) std::memcpy(fresh.get(), data_.get() + read_, size());
    write_ -= read_;
    read_ = 0;
    data_ = std::move(fresh);
    capacity_ = capacity;
}

std::span<char> Buffer::prepare(std::size_t min_bytes) {
    if (capacity_ - write_ < min_bytes) {
        if (read_ > 0 && capacity_ - size() >= min_bytes) {
            std::memmove(data_.get(), data_.get() + read_, size());
            write_ -= read_;
            read_ = 0;
        } else {
            reserve(std::max({capacity_ * 2, size() + min_bytes, std::size_t{256}}));
        }
    }
    return {data_.get() + write_, capacity_ - write_};
}

void Buffer::consume(std::size_t n) {
    read_ += std::min(n, size());
    if (read_ == write_) read_ = write_ = 0;
}

void Buffer::append(std::string_view bytes) {
    if (bytes.empty()) return;
    auto space = prepare(bytes.size());
    std::memcpy(space.data(), bytes.data(), bytes.size());
    commit(bytes.size());
}

void Buffer::shrink_if_empty(std::size_t keep) {
    if (!empty() || capacity_ <= keep) return;
    data_.reset();
    capacity_ = 0;
    read_ = write_ = 0;
    if (keep > 0) reserve(keep);
}

}  // namespace slipstream::base
