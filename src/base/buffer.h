// Buffer: a growable byte buffer with a read cursor, for connection input and output.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

namespace slipstream::base {

/// Bytes in [read, write) are readable; [write, capacity) is free space. Not thread-safe.
/// Growth doubles; compaction moves unread bytes to the front when that makes enough room.
class Buffer {
  public:
    Buffer() = default;
    explicit Buffer(std::size_t initial_capacity) { reserve(initial_capacity); }
    Buffer(Buffer&&) noexcept = default;
    Buffer& operator=(Buffer&&) noexcept = default;

    std::size_t size() const { return write_ - read_; }
    bool empty() const { return write_ == read_; }
    std::size_t capacity() const { return capacity_; }

    const char* data() const { return data_.get() + read_; }
    char* data() { return data_.get() + read_; }
    std::string_view view() const { return {data(), size()}; }

    /// Free space at the end, after making at least `min_bytes` available (grows or compacts).
    std::span<char> prepare(std::size_t min_bytes);
    /// Marks `n` bytes of the prepared space as written.
    void commit(std::size_t n) { write_ += n; }
    /// Drops `n` bytes from the front.
    void consume(std::size_t n);
    void append(std::string_view bytes);
    void append(const void* p, std::size_t n) { append(std::string_view(static_cast<const char*>(p), n)); }
    void clear() { read_ = write_ = 0; }
    /// Releases memory beyond `keep` bytes when the buffer is empty (idle connections stay small).
    void shrink_if_empty(std::size_t keep);
    void reserve(std::size_t capacity);

  private:
    std::unique_ptr<char[]> data_;
    std::size_t capacity_ = 0;
    std::size_t read_ = 0;
    std::size_t write_ = 0;
};

}  // namespace slipstream::base
