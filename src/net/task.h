// Task: a move-only type-erased `void()` callable with inline storage, for posted work and timer callbacks.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace slipstream::net {

/// A move-only `void()` callable. Callables up to kInlineSize bytes (that are nothrow-movable) are stored
/// inline, so posting a lambda that captures a few pointers or a unique_ptr does not allocate; larger
/// ones go to the heap. Unlike std::function it accepts move-only captures. Not thread-safe (a value type).
class Task {
  public:
    static constexpr std::size_t kInlineSize = 4 * sizeof(void*);

    Task() = default;

    template <typename F, typename D = std::decay_t<F>,
              typename = std::enable_if_t<!std::is_same_v<D, Task> && std::is_invocable_r_v<void, D&>>>
    Task(F&& f) {  // NOLINT: implicit on purpose, like std::function
        if constexpr (kFitsInline<D>) {
            ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
            ops_ = &kInlineOps<D>;
        } else {
            *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
            ops_ = &kHeapOps<D>;
        }
    }

    Task(Task&& other) noexcept { take(other); }
    Task& operator=(Task&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    Task(const Task&) = delete;
    Task& operator=(const Task&) = delete;
    ~Task() { reset(); }

    /// Calls the callable. Precondition: not empty. May be called more than once.
    void operator()() { ops_->invoke(storage_); }

    explicit operator bool() const { return ops_ != nullptr; }

    /// Destroys the callable; the task becomes empty.
    void reset() {
        if (ops_ != nullptr) {
            ops_->destroy(storage_);
            ops_ = nullptr;
        }
    }

  private:
    struct Ops {
        void (*invoke)(void* storage);
        void (*relocate)(void* dst, void* src) noexcept;  // move-construct into dst, destroy src
        void (*destroy)(void* storage) noexcept;
    };

    template <typename D>
    static constexpr bool kFitsInline =
        sizeof(D) <= kInlineSize && alignof(D) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<D>;

    template <typename D>
    static constexpr Ops kInlineOps = {
        [](void* s) { (*std::launder(static_cast<D*>(s)))(); },
        [](void* dst, void* src) noexcept {
            D* from = std::launder(static_cast<D*>(src));
            ::new (dst) D(std::move(*from));
            from->~D();
        },
        [](void* s) noexcept { std::launder(static_cast<D*>(s))->~D(); },
    };

    template <typename D>
    static constexpr Ops kHeapOps = {
        [](void* s) { (**static_cast<D**>(s))(); },
        [](void* dst, void* src) noexcept { *static_cast<D**>(dst) = *static_cast<D**>(src); },
        [](void* s) noexcept { delete *static_cast<D**>(s); },
    };

    void take(Task& other) noexcept {
        if (other.ops_ != nullptr) {
            other.ops_->relocate(storage_, other.storage_);
            ops_ = other.ops_;
            other.ops_ = nullptr;
        }
    }

    alignas(std::max_align_t) unsigned char storage_[kInlineSize];
    const Ops* ops_ = nullptr;
};

}  // namespace slipstream::net
