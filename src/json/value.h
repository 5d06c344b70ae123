// Value: a compact, immutable JSON value tree allocated from an Arena.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "json/big_integer.h"
#include "json/key_equal.h"

namespace slipstream::json {

/// kBigInt comes last so that the other kinds keep their values (and bits in type masks).
enum class Type : std::uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject, kBigInt };

struct Member;

/// 16 bytes, trivially destructible, never owns memory: strings, elements and members live in the
/// Arena the value was built in. Integers that fit int64 are kInt; larger non-negative integers
/// kUint; integers beyond both kBigInt (their exact canonical decimal text, as Python keeps them);
/// every other number kDouble. Object members keep document order.
class Value {
  public:
    constexpr Value() : type_(Type::kNull), size_(0), int_(0) {}

    static constexpr Value null() { return Value(); }
    static constexpr Value boolean(bool b) {
        Value v(Type::kBool, 0);
        v.bool_ = b;
        return v;
    }
    static constexpr Value integer(std::int64_t i) {
        Value v(Type::kInt, 0);
        v.int_ = i;
        return v;
    }
    static constexpr Value unsigned_integer(std::uint64_t u) {
        Value v(Type::kUint, 0);
        v.uint_ = u;
        return v;
    }
    /// An integer outside int64 and uint64, as canonical decimal text (optional '-', no leading zeros),
    /// e.g. "123456789012345678901234567890". `digits` must outlive the value (arena memory).
    static constexpr Value big_integer(std::string_view digits) {
        Value v(Type::kBigInt, static_cast<std::uint32_t>(digits.size()));
        v.chars_ = digits.data();
        return v;
    }
    static constexpr Value number(double d) {
        Value v(Type::kDouble, 0);
        v.double_ = d;
        return v;
    }
    /// `s` must outlive the value (arena memory or a static string).
    static constexpr Value string(std::string_view s) {
        Value v(Type::kString, static_cast<std::uint32_t>(s.size()));
        v.chars_ = s.data();
        return v;
    }
    static constexpr Value array(const Value* items, std::uint32_t n) {
        Value v(Type::kArray, n);
        v.items_ = items;
        return v;
    }
    static constexpr Value object(const Member* members, std::uint32_t n) {
        Value v(Type::kObject, n);
        v.members_ = members;
        return v;
    }

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::kNull; }
    bool is_bool() const { return type_ == Type::kBool; }
    /// kInt, kUint or kBigInt.
    bool is_integer() const { return type_ == Type::kInt || type_ == Type::kUint || type_ == Type::kBigInt; }
    /// Any number: kInt, kUint, kBigInt or kDouble.
    bool is_number() const { return is_integer() || type_ == Type::kDouble; }
    bool is_string() const { return type_ == Type::kString; }
    bool is_array() const { return type_ == Type::kArray; }
    bool is_object() const { return type_ == Type::kObject; }

    bool as_bool() const { return bool_; }
    std::int64_t as_int() const { return int_; }
    std::uint64_t as_uint() const { return uint_; }
    /// The number as a double, whatever its representation (the nearest one for kBigInt, +-inf beyond the
    /// double range).
    double as_double() const {
        return type_ == Type::kInt      ? static_cast<double>(int_)
               : type_ == Type::kUint   ? static_cast<double>(uint_)
               : type_ == Type::kBigInt ? big_integer_to_double(as_decimal())
                                        : double_;
    }
    /// The decimal text of a kBigInt; empty for every other type.
    std::string_view as_decimal() const {
        return type_ == Type::kBigInt ? std::string_view(chars_, size_) : std::string_view();
    }
    std::string_view as_string() const { return {chars_, size_}; }
    std::span<const Value> items() const { return {items_, size_}; }
    std::span<const Member> members() const;
    /// Elements of an array or members of an object; string or kBigInt text length in bytes; 0 otherwise.
    std::uint32_t size() const { return size_; }

    /// The first member named `key`, or nullptr (linear scan; objects are small).
    const Value* find(std::string_view key) const;

  private:
    constexpr Value(Type t, std::uint32_t n) : type_(t), size_(n), int_(0) {}

    Type type_;
    std::uint32_t size_;
    union {
        bool bool_;
        std::int64_t int_;
        std::uint64_t uint_;
        double double_;
        const char* chars_;
        const Value* items_;
        const Member* members_;
    };
};

struct Member {
    std::string_view key;
    Value value;
};

inline std::span<const Member> Value::members() const {
    return {members_, size_};
}

inline const Value* Value::find(std::string_view key) const {
    for (const Member& m : members())
        if (key_equal(m.key, key)) return &m.value;
    return nullptr;
}

/// Deep equality as JSON Schema defines it: numbers compare by value (1 == 1.0), objects ignore
/// member order, arrays compare element-wise.
bool equal(const Value& a, const Value& b);

}  // namespace slipstream::json
