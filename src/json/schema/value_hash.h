// Hashing of JSON values consistent with json::equal (for uniqueItems and large enums).
#pragma once

#include <cstdint>

#include "json/value.h"

namespace slipstream::json::schema::detail {

/// equal(a, b) implies value_hash(a) == value_hash(b): numbers hash by their double value
/// (1 and 1.0 collide on purpose), objects ignore member order. Depth beyond 64 hashes as a
/// constant (equality still decides). Allocates nothing.
std::uint64_t value_hash(const json::Value& v);

}  // namespace slipstream::json::schema::detail
