// Result<T>: a value or a Status, whose error cannot be silently ignored.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "base/assert.h"
#include "base/status.h"

namespace slipstream::base {

template <typename T>
class [[nodiscard]] Result {
    static_assert(!std::is_same_v<T, Status>, "use Status for operations without a value");

  public:
    Result(T value) : data_(std::in_place_index<0>, std::move(value)) {}        // NOLINT: implicit on purpose
    Result(Status status) : data_(std::in_place_index<1>, std::move(status)) {  // NOLINT
        SLIPSTREAM_ASSERT(!std::get<1>(data_).is_ok());
    }

    bool is_ok() const { return data_.index() == 0; }
    /// The error; Status::ok() when a value is held.
    Status status() const { return is_ok() ? Status::ok() : std::get<1>(data_); }

    T& value() & {
        SLIPSTREAM_ASSERT(is_ok());
        return std::get<0>(data_);
    }
    const T& value() const& {
        SLIPSTREAM_ASSERT(is_ok());
        return std::get<0>(data_);
    }
    T&& value() && {
        SLIPSTREAM_ASSERT(is_ok());
        return std::get<0>(std::move(data_));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

  private:
    std::variant<T, Status> data_;
};

}  // namespace slipstream::base

#define SLIPSTREAM_CONCAT_INNER(a, b) a##b
#define SLIPSTREAM_CONCAT(a, b) SLIPSTREAM_CONCAT_INNER(a, b)

/// `SLIPSTREAM_ASSIGN_OR_RETURN(auto x, make_x());` returns the error, or binds the value.
#define SLIPSTREAM_ASSIGN_OR_RETURN(decl, expr)                                                                      \
    auto SLIPSTREAM_CONCAT(_ss_result_, __LINE__) = (expr);                                                          \
    if (!SLIPSTREAM_CONCAT(_ss_result_, __LINE__).is_ok()) return SLIPSTREAM_CONCAT(_ss_result_, __LINE__).status(); \
    decl = std::move(SLIPSTREAM_CONCAT(_ss_result_, __LINE__)).value()
