// JsonView: a read-only view of a parsed JSON value (validated request arguments, parsed bodies).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace slipstream {

namespace detail {
struct JsonNode;
}

/// A cheap, copyable view of a JSON value owned by something else (the request: valid while the
/// Request is). A default-constructed view is null. Accessors of the wrong type return zero values.
class JsonView {
  public:
    /// kBigInt: an integer outside int64 and uint64, kept exact as decimal text (as_decimal()).
    enum class Kind : std::uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject, kBigInt };

    JsonView() = default;
    explicit JsonView(const detail::JsonNode* node) : node_(node) {}

    Kind kind() const;
    bool is_null() const { return kind() == Kind::kNull; }
    bool as_bool() const;
    std::int64_t as_int() const;
    std::uint64_t as_uint() const;
    /// Any number as a double (the nearest one for kBigInt).
    double as_double() const;
    /// The exact decimal text of a kBigInt (optional '-', no leading zeros); empty for other kinds.
    std::string_view as_decimal() const;
    std::string_view as_string() const;

    /// Elements of an array or members of an object; 0 otherwise.
    std::size_t size() const;
    /// Array element i (null view when out of range or not an array).
    JsonView at(std::size_t i) const;
    /// Object member i as (key, value), in document order.
    std::pair<std::string_view, JsonView> member(std::size_t i) const;
    /// The member named `key`, or a null view. Check `has()` to tell absent from JSON null.
    JsonView get(std::string_view key) const;
    bool has(std::string_view key) const;

    const detail::JsonNode* node() const { return node_; }

  private:
    const detail::JsonNode* node_ = nullptr;
};

}  // namespace slipstream
