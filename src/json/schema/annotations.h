// Annotations: the set of evaluated member/item indices of one instance, for unevaluated*.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

namespace slipstream::json::schema::detail {

/// A bitset over the members (object) or items (array) of the instance being validated.
/// Inline up to kInlineBits indices, so tracking allocates nothing for common documents; larger
/// instances use one heap block.
class Annotations {
  public:
    static constexpr std::uint32_t kInlineBits = 256;

    explicit Annotations(std::uint32_t size) : size_(size) {
        std::memset(inline_, 0, sizeof(inline_));
        if (size > kInlineBits) heap_ = std::make_unique<std::uint64_t[]>(words());
    }
    Annotations(const Annotations&) = delete;
    Annotations& operator=(const Annotations&) = delete;

    std::uint32_t size() const { return size_; }
    void set(std::uint32_t i) { data()[i >> 6] |= std::uint64_t{1} << (i & 63); }
    bool test(std::uint32_t i) const { return all_ || (data()[i >> 6] >> (i & 63)) & 1; }
    /// Marks [0, end) evaluated.
    void set_prefix(std::uint32_t end) {
        for (std::uint32_t i = 0; i < end && i < size_; ++i)
            set(i);
    }
    void set_all() { all_ = true; }
    bool all() const { return all_; }
    void merge(const Annotations& other) {
        if (other.all_) all_ = true;
        if (all_) return;
        std::uint64_t* d = data();
        const std::uint64_t* o = other.data();
        for (std::uint32_t w = 0; w < words(); ++w)
            d[w] |= o[w];
    }

  private:
    std::uint32_t words() const { return (size_ + 63) / 64; }
    std::uint64_t* data() { return heap_ ? heap_.get() : inline_; }
    const std::uint64_t* data() const { return heap_ ? heap_.get() : inline_; }

    std::uint32_t size_;
    bool all_ = false;
    std::uint64_t inline_[kInlineBits / 64];
    std::unique_ptr<std::uint64_t[]> heap_;
};

}  // namespace slipstream::json::schema::detail
