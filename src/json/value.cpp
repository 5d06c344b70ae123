// Deep equality of JSON values.
#include "json/value.h"

#include <cmath>

namespace slipstream::json {

bool equal(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.type() == Type::kBigInt || b.type() == Type::kBigInt) {
            // A kBigInt is outside int64/uint64: equal to another by text, to a double by exact value.
            if (a.type() == Type::kBigInt && b.type() == Type::kBigInt) return a.as_decimal() == b.as_decimal();
            if (a.type() == Type::kDouble) return !std::isnan(a.as_double()) && equal(b, a);
            if (b.type() != Type::kDouble || std::isnan(b.as_double())) return false;
            return compare_big_integer_double(a.as_decimal(), b.as_double()) == 0;
        }
        if (a.type() == Type::kInt && b.type() == Type::kInt) return a.as_int() == b.as_int();
        if (a.type() == Type::kUint && b.type() == Type::kUint) return a.as_uint() == b.as_uint();
        if (a.type() != Type::kDouble && b.type() != Type::kDouble) return false;  // int64 vs > int64 max
        return a.as_double() == b.as_double();
    }
    if (a.type() != b.type()) return false;
    switch (a.type()) {
        case Type::kNull:
            return true;
        case Type::kBool:
            return a.as_bool() == b.as_bool();
        case Type::kString:
            return key_equal(a.as_string(), b.as_string());
        case Type::kArray: {
            if (a.size() != b.size()) return false;
            for (std::uint32_t i = 0; i < a.size(); ++i)
                if (!equal(a.items()[i], b.items()[i])) return false;
            return true;
        }
        case Type::kObject: {
            if (a.size() != b.size()) return false;
            for (const Member& m : a.members()) {
                const Value* other = b.find(m.key);
                if (other == nullptr || !equal(m.value, *other)) return false;
            }
            return true;
        }
        default:
            return false;
    }
}

}  // namespace slipstream::json
