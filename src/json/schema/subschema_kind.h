// Which keywords hold subschemas, per draft (shared by resource discovery and the compiler).
#pragma once

#include <cstdint>
#include <string_view>

#include "json/schema/schema.h"

namespace slipstream::json::schema::detail {

enum class SubschemaKind : std::uint8_t {
    kNone,          // not an applicator: its value is data ("const", "enum", unknown keywords)
    kSchema,        // one subschema ("not", "items" in 2020-12)
    kSchemaArray,   // an array of subschemas ("allOf", "prefixItems")
    kSchemaMap,     // an object of subschemas ("properties", "$defs")
    kItems7,        // draft-07 "items": a subschema or an array of them
    kDependencies7  // draft-07 "dependencies": values are subschemas or arrays of names
};

SubschemaKind subschema_kind(std::string_view keyword, Draft draft);

}  // namespace slipstream::json::schema::detail
