// Validator: one compiled keyword (or small keyword group) of a schema object.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "json/schema/annotations.h"
#include "json/schema/context.h"
#include "json/value.h"

namespace slipstream::json::schema::detail {

/// Bit of a json::Type in a validator's applicability mask (nine types: 16 bits).
constexpr std::uint16_t type_bit(json::Type t) {
    return static_cast<std::uint16_t>(1u << static_cast<unsigned>(t));
}
constexpr std::uint16_t kAnyType = 0xffff;
constexpr std::uint16_t kObjectType = type_bit(json::Type::kObject);
constexpr std::uint16_t kArrayType = type_bit(json::Type::kArray);
constexpr std::uint16_t kStringType = type_bit(json::Type::kString);
constexpr std::uint16_t kIntegerType =
    type_bit(json::Type::kInt) | type_bit(json::Type::kUint) | type_bit(json::Type::kBigInt);
constexpr std::uint16_t kNumberType = kIntegerType | type_bit(json::Type::kDouble);

/// Immutable after compile(); validate() is const and thread-safe.
class Validator {
  public:
    /// `location`: absolute keyword location for errors; `applies_to`: the instance types this
    /// keyword constrains (others pass without a call).
    Validator(std::string location, std::uint16_t applies_to)
        : location_(std::move(location)), applies_to_(applies_to) {}
    virtual ~Validator() = default;
    Validator(const Validator&) = delete;
    Validator& operator=(const Validator&) = delete;

    /// True when valid. `ann` is non-null when an enclosing unevaluated* needs to know which
    /// members/items this keyword evaluated; the validator marks them.
    virtual bool validate(const json::Value& v, Context& ctx, Annotations* ann) const = 0;

    std::uint16_t applies_to() const { return applies_to_; }
    const std::string& location() const { return location_; }

  protected:
    std::string location_;
    std::uint16_t applies_to_;
};

}  // namespace slipstream::json::schema::detail
