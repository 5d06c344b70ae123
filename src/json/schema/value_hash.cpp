// value_hash: an order-insensitive (for objects) structural hash of JSON values.
#include "json/schema/value_hash.h"

#include <cstring>
#include <string_view>

namespace slipstream::json::schema::detail {
namespace {

constexpr int kMaxDepth = 64;

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

std::uint64_t hash_bytes(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return mix(h);
}

std::uint64_t hash(const json::Value& v, int depth) {
    if (depth > kMaxDepth) return 0x5eed;
    switch (v.type()) {
        case json::Type::kNull:
            return 0x9e3779b97f4a7c15ULL;
        case json::Type::kBool:
            return v.as_bool() ? 0x2545f4914f6cdd1dULL : 0x1b873593ULL;
        case json::Type::kInt:
        case json::Type::kUint:
        case json::Type::kBigInt:  // equal() to a double only when that double is its nearest
        case json::Type::kDouble: {
            double d = v.as_double();
            if (d == 0) d = 0;  // -0.0 == 0.0
            std::uint64_t bits;
            std::memcpy(&bits, &d, sizeof bits);
            return mix(bits ^ 0x4e554d);
        }
        case json::Type::kString:
            return hash_bytes(v.as_string());
        case json::Type::kArray: {
            std::uint64_t h = 0xa11a7;
            for (const json::Value& item : v.items())
                h = mix(h * 31 + hash(item, depth + 1));
            return h;
        }
        case json::Type::kObject: {
            std::uint64_t h = 0x0b1ec7;
            for (const json::Member& m : v.members())
                h += mix(hash_bytes(m.key) ^ (hash(m.value, depth + 1) * 7));
            return mix(h);
        }
    }
    return 0;
}

}  // namespace

std::uint64_t value_hash(const json::Value& v) {
    return hash(v, 0);
}

}  // namespace slipstream::json::schema::detail
